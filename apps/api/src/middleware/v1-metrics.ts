import type { Metrics } from '@switchboard/metrics';
import type { Gateway } from '@switchboard/providers';
import type { Context, Middleware } from 'koa';
import { requestTimedOut } from '../request-timeouts.js';

/** The instruments of one route and model, bound to their labels once (prom-client children). */
interface Series {
  requests: Map<number, { inc(): void }>;
  duration: { observe(seconds: number): void };
  timeToFirstToken: { observe(seconds: number): void };
  labels: { route: string; model: string; provider: string };
}

/**
 * Counts each /v1 request once its response is over (streams included): by route template,
 * status (499 when the client hung up first, 408 when we cut a slow one), model and provider,
 * with its duration and, for streams, the time to the first chunk (`ctx.state.firstEventAt`, set
 * by the SSE writer). The model label is a configured name only (a deployment id, or a route
 * while no deployment answered), never what a client typed, so the series stay few; each is
 * looked up in a map and updated in place, no label object made per request.
 */
export function v1Metrics(metrics: Metrics, gateway: Gateway): Middleware {
  const providerOf = new Map(gateway.modelList.data.map((entry) => [entry.id, entry.owned_by]));
  const { v1Requests, v1Duration, v1TimeToFirstToken } = metrics;
  const byRoute = new Map<string, Map<string, Series>>();
  const series = (route: string, model: string | undefined): Series => {
    const provider = (model && providerOf.get(model)) || 'unknown';
    const modelLabel = provider === 'unknown' ? 'unknown' : model!;
    let byModel = byRoute.get(route);
    if (!byModel) {
      byModel = new Map();
      byRoute.set(route, byModel);
    }
    let found = byModel.get(modelLabel);
    if (!found) {
      const labels = { route, model: modelLabel, provider };
      found = {
        requests: new Map(),
        duration: v1Duration.labels(labels),
        timeToFirstToken: v1TimeToFirstToken.labels(labels),
        labels,
      };
      byModel.set(modelLabel, found);
    }
    return found;
  };
  const requests = (s: Series, status: number) => {
    let counter = s.requests.get(status);
    if (!counter) {
      counter = v1Requests.labels({ ...s.labels, status });
      s.requests.set(status, counter);
    }
    return counter;
  };
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/v1/')) return next();
    const started = performance.now();
    ctx.res.once('close', () => {
      const { model, firstEventAt } = ctx.state as { model?: string; firstEventAt?: number };
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const s = series(typeof route === 'string' ? route : 'unmatched', model);
      const finished = ctx.res.writableFinished;
      requests(s, finished ? ctx.res.statusCode : requestTimedOut(ctx.req.socket) ? 408 : 499).inc();
      s.duration.observe((performance.now() - started) / 1000);
      if (firstEventAt !== undefined) s.timeToFirstToken.observe((firstEventAt - started) / 1000);
    });
    await next();
  };
}

/** For the SSE writer: notes when a stream's first event went out (read above as time to first token). */
export const firstEventClock = (ctx: Context) => () => {
  ctx.state.firstEventAt = performance.now();
};
