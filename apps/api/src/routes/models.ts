import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';

export function modelsRoutes(router: Router, deps: AppDeps): void {
  const list = deps.gateway.registry.modelList;
  router.get('/v1/models', (ctx) => {
    ctx.body = list;
  });
  /** The model's entry; `default` and a bare name answer with the entry of the model they stand for. */
  router.get('/v1/models/*id', (ctx) => {
    const { id } = deps.gateway.registry.resolve(ctx.params.id ?? ''); // 404 model_not_found, 400 ambiguous_model
    ctx.body = list.data.find((m) => m.id === id);
  });
}
