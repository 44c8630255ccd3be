import type Router from '@koa/router';
import { serviceUnavailable } from '@switchboard/protocol';
import { pingRedis, WORKER_HEARTBEAT_MS, withTimeout } from '@switchboard/state';
import type { AppDeps } from '../deps.js';

/** What /health and /ready read. */
type HealthDeps = Pick<AppDeps, 'redis' | 'hooks' | 'settings' | 'workers'>;

export function healthRoutes(router: Router, deps: HealthDeps): void {
  /** Up means the process answers: no dependency is consulted. */
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  /**
   * Ready means the config is loaded (this process would not run otherwise) and Redis answers, so
   * hooks can be queued: 200. With hooks configured and no worker heartbeat within three lock
   * periods, still 200 (messages are queued, none is lost) but `degraded`, with the reason.
   */
  router.get('/ready', async (ctx) => {
    if (!(await pingRedis(deps.redis))) throw serviceUnavailable('Redis is not reachable.', 'redis_unavailable');
    const reason = deps.hooks.size > 0 ? await workersSilent(deps) : null;
    ctx.body = reason ? { status: 'degraded', reason } : { status: 'ready' };
  });
}

/** Why hook messages would not be answered now, or null when a worker beat recently. */
async function workersSilent(deps: Pick<HealthDeps, 'settings' | 'workers'>): Promise<string | null> {
  // Three lock periods, and never less than three heartbeats (a lock shorter than a heartbeat).
  const windowMs = 3 * Math.max(deps.settings.config.worker.lockMs, WORKER_HEARTBEAT_MS);
  let since: number | null;
  try {
    since = await withTimeout(deps.workers.sinceLastBeat(), 1_000);
  } catch {
    return 'worker heartbeats could not be read from Redis';
  }
  if (since === null) return 'no worker heartbeat seen: hook messages are queued but no worker answers them';
  if (since <= windowMs) return null;
  return `no worker heartbeat for ${Math.round(since / 1000)} s (more than 3 lock periods, ${windowMs / 1000} s): hook messages are queued but no worker answers them`;
}
