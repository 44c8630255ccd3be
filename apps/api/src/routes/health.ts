import type Router from '@koa/router';
import { serviceUnavailable } from '@switchboard/protocol';
import { pingRedis } from '@switchboard/state';
import type { AppDeps } from '../deps.js';

export function healthRoutes(router: Router, deps: AppDeps): void {
  /** Up means the process answers: no dependency is consulted. */
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  /** Ready means Redis answers, so hooks can be queued. */
  router.get('/ready', async (ctx) => {
    if (!(await pingRedis(deps.redis))) throw serviceUnavailable('Redis is not reachable.', 'redis_unavailable');
    ctx.body = { status: 'ready' };
  });
}
