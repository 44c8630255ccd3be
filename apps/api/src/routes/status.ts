import type Router from '@koa/router';
import { readStatus, type StatusSources } from '../services/status-service.js';

export function statusRoutes(router: Router, deps: StatusSources): void {
  router.get('/status', async (ctx) => {
    ctx.body = await readStatus(deps);
  });
}
