import type Router from '@koa/router';
import { type ResponseStreamEvent, responsesRequestSchema } from '@switchboard/protocol';
import { createResponse, streamResponse } from '@switchboard/providers';
import type { AppDeps } from '../deps.js';
import { clientSignal } from '../middleware/client-signal.js';
import { firstEventClock } from '../middleware/v1-metrics.js';
import { meterRequest } from '../services/metering.js';
import { restampResponse, restampResponseEvents } from '../services/restamp.js';
import { replayEvents, type SseFormat, sendEvents } from '../sse.js';
import { parseBody, tooManyMessages } from './parse-body.js';

/** Responses events: named frames (`event: response.output_text.delta`), no `[DONE]`. */
const named = (event: Record<string, unknown>) => String(event.type);

/**
 * POST /v1/responses: the OpenAI Responses API on every provider, translated onto chat
 * completions by @switchboard/providers (responses/), so routes, cooldowns, fallbacks, usage
 * and the cache work as they do for chat.
 */
export function responsesRoutes(router: Router, deps: AppDeps): void {
  router.post('/v1/responses', async (ctx) => {
    const { limits } = deps.settings.config;
    const request = parseBody(responsesRequestSchema, ctx.request.body, limits.maxJsonDepth, '"model" and "input"');
    if (Array.isArray(request.input) && request.input.length > limits.maxMessages)
      throw tooManyMessages(limits.maxMessages, 'input');
    ctx.state.model = request.model.slice(0, 200);
    if (request.user) deps.sessions.touch(`api:${request.user}`);
    const onUsage = await meterRequest(ctx, deps, {
      model: request.model,
      kind: 'chat',
      prompt: [request.instructions, request.input],
      maxOutput: request.max_output_tokens,
    });
    const call = { signal: clientSignal(ctx), requestId: ctx.state.requestId as string, onUsage };
    const stream = request.stream === true;
    const cached = await deps.cache?.lookup(ctx, {
      kind: 'responses',
      request: { ...request, model: deps.gateway.routes.target(request.model, 'chat').name },
      stream,
      temperature: request.temperature,
    });

    if (!stream) {
      const body =
        cached?.hit && 'body' in cached.hit
          ? restampResponse(cached.hit.body)
          : await createResponse(deps.gateway, request, call);
      if (cached && !cached.hit) deps.cache?.save(cached, { body });
      if (typeof body.model === 'string') ctx.state.model = body.model;
      ctx.body = body;
      return;
    }

    const send = { ...call, logger: deps.logger, onFirstEvent: firstEventClock(ctx) };
    if (cached?.hit && 'events' in cached.hit) {
      ctx.respond = false;
      await replayEvents(
        ctx.res,
        restampResponseEvents(cached.hit.events),
        { name: named, done: false, failure: () => [] },
        send,
      );
      return;
    }
    const upstream = await streamResponse(deps.gateway, request, call);
    ctx.state.model = upstream.model;
    ctx.respond = false;
    const format: SseFormat<ResponseStreamEvent> = { name: named, done: false, failure: (err) => upstream.fail(err) };
    const events: ResponseStreamEvent[] = [];
    const onEvent = cached ? (event: ResponseStreamEvent) => void events.push(event) : undefined;
    const complete = await sendEvents(ctx.res, upstream.events, format, { ...send, onEvent });
    if (cached && complete) deps.cache?.save(cached, { events });
  });
}
