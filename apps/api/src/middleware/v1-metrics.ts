import type { CounterSeries, HistogramSeries, Metrics } from '@switchboard/metrics';
import type { Gateway } from '@switchboard/providers';
import type { Context } from 'koa';
import { requestTimedOut } from '../request-timeouts.js';
import { onResponseClose } from './request-context.js';

/** The instruments of one route and model, bound to their labels once (plain numbers, read at scrape time). */
interface Series {
  requests: Map<number, CounterSeries>;
  duration: HistogramSeries;
  timeToFirstToken: HistogramSeries;
  labels: { route: string; model: string; provider: string };
}

const V1_PATH = /^\/v1\//i;

/** One /v1 request as it is counted, once its response is over. */
export interface V1Outcome {
  /** The route template that answered (`/v1/chat/completions`); undefined when none matched. */
  route: string | undefined;
  /** The model name the request resolved to (`ctx.state.model`), if it got that far. */
  model: string | undefined;
  status: number;
  seconds: number;
  /** Streams only: seconds to the first chunk sent. */
  firstTokenSeconds?: number | undefined;
}

/**
 * The status a request is counted under: its own once the response was written in full, 408 when
 * the server cut a request that came in too slowly, else 499 (the client hung up first).
 */
export function countedStatus(finished: boolean, statusCode: number, timedOut: boolean): number {
  return finished ? statusCode : timedOut ? 408 : 499;
}

/**
 * Records /v1 outcomes by route template, status, model and provider. The model label is a
 * configured name only (a deployment id, or a route while no deployment answered), never what a
 * client typed, so the series stay few: anything else is `unknown`, and so is its provider. Each
 * series is looked up in a map and updated in place, no label object made per request.
 */
export function v1Recorder(metrics: Metrics, models: readonly { id: string; owned_by: string }[]): (outcome: V1Outcome) => void {
  const providerOf = new Map(models.map((entry) => [entry.id, entry.owned_by]));
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
  return ({ route, model, status, seconds, firstTokenSeconds }) => {
    const s = series(route ?? 'unmatched', model);
    requests(s, status).inc();
    s.duration.observe(seconds);
    if (firstTokenSeconds !== undefined) s.timeToFirstToken.observe(firstTokenSeconds);
  };
}

/**
 * Counts each /v1 request once its response is over (streams included), through `v1Recorder`:
 * with its duration and, for streams, the time to the first chunk (`ctx.state.firstEventAt`, set
 * by the SSE writer).
 */
export function v1Metrics(metrics: Metrics, gateway: Gateway): (ctx: Context) => void {
  const record = v1Recorder(metrics, gateway.modelList.data);
  // Not a middleware of its own: the front door (front-door.ts) calls it, nothing to wait for.
  return (ctx) => {
    // Case-insensitive, as the router matches (`/V1/chat/completions` is served, so it is counted).
    if (!V1_PATH.test(ctx.path)) return;
    const started = performance.now();
    onResponseClose(ctx, () => {
      const { model, firstEventAt } = ctx.state as { model?: string; firstEventAt?: number };
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      record({
        route: typeof route === 'string' ? route : undefined,
        model,
        status: countedStatus(ctx.res.writableFinished, ctx.res.statusCode, requestTimedOut(ctx.req.socket)),
        seconds: (performance.now() - started) / 1000,
        firstTokenSeconds: firstEventAt === undefined ? undefined : (firstEventAt - started) / 1000,
      });
    });
  };
}

/** For the SSE writer: notes when a stream's first event went out (read above as time to first token). */
export const firstEventClock = (ctx: Context) => () => {
  ctx.state.firstEventAt = performance.now();
};
