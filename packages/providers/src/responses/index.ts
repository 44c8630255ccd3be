import {
  type ResponseObject,
  type ResponseStreamEvent,
  type ResponsesRequest,
  responseId,
  toErrorResponse,
} from '@switchboard/protocol';
import type { Gateway } from '../gateway.js';
import type { CallContext } from '../provider.js';
import type { RoutePlan } from '../routing/route-table.js';
import { toChatRequest } from './convert-request.js';
import { fromChatCompletion } from './convert-response.js';
import { ResponseEventStream } from './convert-stream.js';
import { responseShell } from './response-shell.js';

export { toChatRequest } from './convert-request.js';
export { fromChatCompletion } from './convert-response.js';
export { responseShell, toResponseUsage } from './response-shell.js';
export { type MakeEvent, StreamedMessage } from './streamed-message.js';

/**
 * POST /v1/responses on any provider: the request is translated to a chat completion, served by
 * the gateway (routes, cooldowns, fallbacks, usage), and its answer translated back.
 */
export async function createResponse(
  gateway: Gateway,
  request: ResponsesRequest,
  ctx: CallContext,
  plan?: RoutePlan,
): Promise<ResponseObject> {
  const completion = await gateway.complete(toChatRequest(request, false), ctx, plan);
  const shell = responseShell(request, { id: responseId(), created_at: completion.created, model: completion.model });
  return fromChatCompletion(completion, shell);
}

export interface ResponseStream {
  id: string;
  model: string;
  /**
   * From `response.created` to `response.completed`, the events of one upstream read together in
   * one array; throws when the upstream breaks off.
   */
  batches: AsyncIterable<ResponseStreamEvent[]>;
  /** The events that end a stream broken by `err` (`error`, then `response.failed`). */
  fail(err: unknown): ResponseStreamEvent[];
}

/** Resolves once the upstream has accepted the request, like Gateway.stream (`plan` as there). */
export async function streamResponse(
  gateway: Gateway,
  request: ResponsesRequest,
  ctx: CallContext,
  plan?: RoutePlan,
): Promise<ResponseStream> {
  const stream = await gateway.stream(toChatRequest(request, true), ctx, plan);
  const id = responseId();
  const translator = new ResponseEventStream(
    responseShell(request, { id, created_at: Math.floor(Date.now() / 1000), model: stream.model }),
  );
  async function* batches(): AsyncGenerator<ResponseStreamEvent[]> {
    yield translator.start();
    for await (const chunks of stream.batches) {
      const out = chunks.flatMap((chunk) => translator.push(chunk));
      if (out.length) yield out;
    }
    yield translator.finish();
  }
  return {
    id,
    model: stream.model,
    batches: batches(),
    fail: (err) => translator.fail(toErrorResponse(err).body.error),
  };
}
