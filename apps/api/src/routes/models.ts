import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';

export function modelsRoutes(router: Router, deps: Pick<AppDeps, 'gateway'>): void {
  router.get('/v1/models', (ctx) => {
    ctx.body = deps.gateway.modelList;
  });
  router.get('/v1/models/*id', (ctx) => {
    // Always a list entry, never the gateway's own objects (they hold provider keys).
    ctx.body = deps.gateway.describeModel(ctx.params.id ?? ''); // 404 model_not_found when unknown
  });
}
