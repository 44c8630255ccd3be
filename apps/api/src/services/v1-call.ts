import type { CallContext, ModelKind, RoutePlan } from '@switchboard/providers';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { clientCancel } from '../middleware/client-signal.js';
import { firstEventClock } from '../middleware/v1-metrics.js';
import { replayEvents, type SendOptions, type SseFormat, sendEvents } from '../sse.js';
import { meterRequest } from './metering.js';
import type { Cacheable } from './response-cache.js';

type Json = Record<string, unknown>;

/** How one endpoint streams: the upstream's events and their framing, and a recorded stream sent again. */
export interface V1Stream<E extends object> {
  /**
   * Resolves once the upstream has accepted the request, so a failure before that is still a JSON
   * error; `batches`: the events, those of one upstream read together.
   */
  open(plan: RoutePlan, call: CallContext): Promise<{ model: string; batches: AsyncIterable<E[]>; format: SseFormat<E> }>;
  /** A cache hit's events made a new answer (their own id and time), and how they are framed. */
  replay(events: Json[]): { events: Json[]; format: SseFormat<Json> };
}

/** What one /v1 endpoint gives the shared call: everything else is the same for all of them. */
export interface V1CallSpec<E extends object> {
  /**
   * The endpoint, in the cache key: entries of one never answer another. null: never cached (a
   * transcription's input is a file, which the key does not hold).
   */
  endpoint: Cacheable['kind'] | null;
  /** Which kind of model the request may name. */
  modelKind: ModelKind;
  /** The parsed request; `model` as the client sent it. */
  request: Json & { model: string };
  /** For the cache policy (`temperature-zero`); embeddings pass 0 (the same input gives the same vectors). */
  temperature: number | null | undefined;
  /** What the prompt is made of and the answer's cap, for a budget's estimate. */
  estimate: { prompt: unknown; maxOutput?: number | null | undefined };
  /** The caller named in `user`, counted as an active session. */
  user?: string | null | undefined;
  /** The upstream's whole answer (a request without `stream: true`). */
  complete(plan: RoutePlan, call: CallContext): Promise<object>;
  /** A cached whole answer made a new one (its own id and time); sent as stored when absent. */
  restamp?: (body: Json) => Json;
  /** Present when the request asked for a stream. */
  stream?: V1Stream<E> | undefined;
}

/** What the call uses of the app's dependencies. */
export type V1CallDeps = Pick<AppDeps, 'gateway' | 'usage' | 'cache' | 'logger' | 'sessions'>;

/**
 * One metered, cached, possibly streamed /v1 call, the same for every endpoint: the model is
 * resolved once (`Gateway.plan`: 404/400 before anything is reserved) and that plan serves the
 * price, the cache key and the upstream call; the API key's budget is checked and the estimate
 * reserved (429 `insufficient_quota`); the cache is asked (a hit answered or replayed); else the
 * upstream answers — whole, or as a stream written as it comes, recorded for the cache when it
 * ends complete.
 */
export async function v1Call<E extends object>(ctx: Context, deps: V1CallDeps, spec: V1CallSpec<E>): Promise<void> {
  const { request } = spec;
  ctx.state.model = request.model.slice(0, 200); // the log line stays one short line
  if (spec.user) deps.sessions.touch(`api:${spec.user}`); // in the background: never delays the request
  const plan = deps.gateway.plan(request.model, spec.modelKind);
  const opened = meterRequest(ctx, deps, { model: request.model, resolvedModel: plan.name, ...spec.estimate });
  // Only a budget's reservation waits on Redis: awaiting anything else would cost a promise and a turn.
  const metered = opened instanceof Promise ? await opened : opened;
  try {
    const call: CallContext = { signal: clientCancel(ctx), requestId: ctx.state.requestId as string, onUsage: metered.onUsage };
    // No cache, no await: awaiting undefined would still cost a promise and a turn per request.
    const cached =
      spec.endpoint === null || !deps.cache
        ? undefined
        : await deps.cache.lookup(ctx, {
            kind: spec.endpoint,
            request: { ...request, model: plan.name },
            stream: spec.stream !== undefined,
            temperature: spec.temperature,
          });

    if (!spec.stream) {
      const hit = cached?.hit && 'body' in cached.hit ? cached.hit.body : undefined;
      const body: { model?: unknown } = hit ? (spec.restamp?.(hit) ?? hit) : await spec.complete(plan, call);
      if (cached && !hit) deps.cache?.save(cached, { body });
      if (typeof body.model === 'string') ctx.state.model = body.model;
      ctx.body = body;
      return;
    }

    if (cached?.hit && 'events' in cached.hit) {
      ctx.respond = false;
      const replay = spec.stream.replay(cached.hit.events);
      const model = modelOf(replay.events[0]);
      if (model) ctx.state.model = model;
      await replayEvents(ctx.res, replay.events, replay.format, sendOptions(ctx, call, deps.logger, undefined));
      return;
    }
    const upstream = await spec.stream.open(plan, call);
    ctx.state.model = upstream.model;
    ctx.respond = false; // only now: a failure before the upstream said yes is still a JSON error
    const events: E[] = [];
    const onEvent = cached ? (event: E) => void events.push(event) : undefined;
    const complete = await sendEvents(ctx.res, upstream.batches, upstream.format, sendOptions(ctx, call, deps.logger, onEvent));
    if (cached && complete) deps.cache?.save(cached, { events });
  } finally {
    metered.close(); // once the route is done, a stream included: settled by its usage, or the reservation given back
  }
}

/** The SSE writer's options: one object of one shape, not spreads of the call's context (a slow clone each). */
function sendOptions<E>(
  ctx: Context,
  call: CallContext,
  logger: V1CallDeps['logger'],
  onEvent: SendOptions<E>['onEvent'],
): SendOptions<E> {
  return { signal: call.signal, requestId: call.requestId, logger, onEvent, onFirstEvent: firstEventClock(ctx) };
}

/** The model a recorded stream names: a chat chunk's `model`, or the Response a lifecycle event carries. */
export function modelOf(event: Json | undefined): string | undefined {
  if (typeof event?.model === 'string') return event.model;
  const response = event?.response as Json | undefined;
  return typeof response?.model === 'string' ? response.model : undefined;
}
