import type { Metrics } from '@switchboard/metrics';
import type { Gateway } from '@switchboard/providers';
import type { Context, Middleware } from 'koa';
import { requestTimedOut } from '../request-timeouts.js';

/**
 * Counts each /v1 request once its response is over (streams included): by route template,
 * status (499 when the client hung up first, 408 when we cut a slow one), model and provider,
 * with its duration and, for streams, the time to the first chunk (`ctx.state.firstEventAt`, set
 * by the SSE writer). The model label is a configured name only (a deployment id, or a route
 * while no deployment answered), never what a client typed, so the series stay few.
 */
export function v1Metrics(metrics: Metrics, gateway: Gateway): Middleware {
  const providerOf = new Map(gateway.modelList.data.map((entry) => [entry.id, entry.owned_by]));
  const { v1Requests, v1Duration, v1TimeToFirstToken } = metrics;
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/v1/')) return next();
    const started = performance.now();
    ctx.res.once('close', () => {
      const { model, firstEventAt } = ctx.state as { model?: string; firstEventAt?: number };
      const provider = (model && providerOf.get(model)) || 'unknown';
      const labels = {
        route: ((ctx as { _matchedRoute?: unknown })._matchedRoute as string | undefined) ?? 'unmatched',
        model: provider === 'unknown' ? 'unknown' : model!,
        provider,
      };
      const finished = ctx.res.writableFinished;
      const status = finished ? ctx.res.statusCode : requestTimedOut(ctx.req.socket) ? 408 : 499;
      v1Requests.inc({ ...labels, status });
      v1Duration.observe(labels, (performance.now() - started) / 1000);
      if (firstEventAt !== undefined) v1TimeToFirstToken.observe(labels, (firstEventAt - started) / 1000);
    });
    await next();
  };
}

/** For the SSE writer: notes when a stream's first event went out (read above as time to first token). */
export const firstEventClock = (ctx: Context) => () => {
  ctx.state.firstEventAt = performance.now();
};
