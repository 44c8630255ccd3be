import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';

export function modelsRoutes(router: Router, deps: AppDeps): void {
  const list = deps.gateway.registry.modelList;
  router.get('/v1/models', (ctx) => {
    ctx.body = list;
  });
  router.get('/v1/models/*id', (ctx) => {
    const id = ctx.params.id ?? '';
    const model = list.data.find((m: { id: string }) => m.id === id);
    ctx.body = model ?? deps.gateway.registry.resolve(id); // resolve throws model_not_found
  });
}
