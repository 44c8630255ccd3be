import type Router from '@koa/router';
import { notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';
import { adminAuth } from '../middleware/admin-auth.js';

/** Prometheus's scrape target: this API process's metrics and the shared (Redis) gauges, behind the admin key. */
export function metricsRoutes(router: Router, deps: AppDeps): void {
  const { adminKeys, apiKeys } = deps.settings.config;
  router.get('/metrics', adminAuth(adminKeys, apiKeys.length > 0), async (ctx) => {
    if (!deps.metrics) throw notFound('Metrics are off (metrics.enabled is false).', 'metrics_disabled');
    const { contentType, text } = await deps.metrics.expose();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = text;
  });
}
