import type Router from '@koa/router';
import { notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';

/** Prometheus's scrape target: this API process's metrics and the shared (Redis) gauges, behind the admin key (app.ts). */
export function metricsRoutes(router: Router, deps: Pick<AppDeps, 'metrics'>): void {
  router.get('/metrics', async (ctx) => {
    if (!deps.metrics) throw notFound('Metrics are off (metrics.enabled is false).', 'metrics_disabled');
    const { contentType, text } = await deps.metrics.expose();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = text;
  });
}
