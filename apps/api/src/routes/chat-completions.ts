import type Router from '@koa/router';
import { chatCompletionRequestSchema, isPlainChatRequest, toErrorResponse } from '@switchboard/protocol';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientSignal } from '../middleware/client-signal.js';
import { firstEventClock } from '../middleware/v1-metrics.js';
import { meterRequest } from '../services/metering.js';
import { restampChunks, restampCompletion } from '../services/restamp.js';
import { replayEvents, type SseFormat, sendEvents } from '../sse.js';
import { parseBody, tooManyMessages } from './parse-body.js';

/** Chat chunks: unnamed `data:` frames, `[DONE]` at the end, one `{"error":…}` frame on failure. */
const CHAT_SSE: SseFormat<Record<string, unknown>> = { done: true, failure: (err) => [toErrorResponse(err).body] };

export function chatCompletionsRoutes(router: Router, deps: AppDeps): void {
  router.post('/v1/chat/completions', async (ctx) => {
    const { limits } = deps.settings.config;
    const request = parseBody(
      chatCompletionRequestSchema,
      ctx.request.body,
      limits.maxJsonDepth,
      '"model" and "messages"',
      isPlainChatRequest,
    );
    if (request.messages.length > limits.maxMessages) throw tooManyMessages(limits.maxMessages, 'messages');
    ctx.state.model = request.model.slice(0, 200); // the log line stays one short line
    if (request.user) deps.sessions.touch(`api:${request.user}`); // in the background: never delays the request
    const onUsage = await meterRequest(ctx, deps, {
      model: request.model,
      kind: 'chat',
      prompt: request.messages,
      maxOutput: request.max_completion_tokens ?? request.max_tokens,
    });
    const call = { signal: clientSignal(ctx), requestId: ctx.state.requestId as string, onUsage };
    const stream = request.stream === true;
    const cached = await deps.cache?.lookup(ctx, {
      kind: 'chat',
      request: { ...request, model: deps.gateway.routes.target(request.model, 'chat').name },
      stream,
      temperature: request.temperature,
    });

    if (!stream) {
      if (cached?.hit && 'body' in cached.hit) return answer(ctx, restampCompletion(cached.hit.body));
      const completion = await deps.gateway.complete(request, call);
      if (cached) deps.cache?.save(cached, { body: completion });
      return answer(ctx, completion);
    }

    const send = { ...call, logger: deps.logger, onFirstEvent: firstEventClock(ctx) };
    if (cached?.hit && 'events' in cached.hit) {
      ctx.respond = false;
      const events = restampChunks(cached.hit.events);
      if (typeof events[0]?.model === 'string') ctx.state.model = events[0].model;
      await replayEvents(ctx.res, events, CHAT_SSE, send);
      return;
    }
    const upstream = await deps.gateway.stream(request, call);
    ctx.state.model = upstream.model;
    ctx.respond = false; // only now: a failure before the upstream said yes is still a JSON error
    const events: Record<string, unknown>[] = [];
    const onEvent = cached ? (chunk: Record<string, unknown>) => void events.push(chunk) : undefined;
    const complete = await sendEvents(ctx.res, upstream.chunks, CHAT_SSE, { ...send, onEvent });
    if (cached && complete) deps.cache?.save(cached, { events });
  });
}

function answer(ctx: Context, body: Record<string, unknown>): void {
  if (typeof body.model === 'string') ctx.state.model = body.model;
  ctx.body = body;
}
