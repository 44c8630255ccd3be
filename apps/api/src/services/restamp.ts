import { completionId, responseId, unixSeconds } from '@switchboard/protocol';

/**
 * A cached answer sent again is a new response: it gets its own id and time (clients and logs
 * keep ids apart); everything the model said is as stored.
 */
type Json = Record<string, unknown>;

export function restampCompletion(body: Json): Json {
  return { ...body, id: completionId(), created: unixSeconds() };
}

export function restampChunks(events: Json[]): Json[] {
  const head = { id: completionId(), created: unixSeconds() };
  return events.map((chunk) => ({ ...chunk, ...head }));
}

export function restampResponse(body: Json): Json {
  return { ...body, id: responseId(), created_at: unixSeconds() };
}

/** The lifecycle events (`response.created`, `response.completed`…) carry the Response: restamped alike. */
export function restampResponseEvents(events: Json[]): Json[] {
  const head = { id: responseId(), created_at: unixSeconds() };
  return events.map((event) => {
    const response = event.response;
    if (!response || typeof response !== 'object' || Array.isArray(response)) return event;
    return { ...event, response: { ...response, ...head } };
  });
}
