import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { readStatus } from '../services/status-service.js';

export function statusRoutes(router: Router, deps: AppDeps): void {
  router.get('/status', async (ctx) => {
    ctx.body = await readStatus(deps);
  });
}
