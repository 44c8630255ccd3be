import type Router from '@koa/router';
import { listJobs, readActivity, retryFailedJobs, retryJob } from '@switchboard/hub';
import { AppError, notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';
import { findHook } from '../services/hook-service.js';
import { readStatus } from '../services/status-service.js';
import { pairingRoutes } from './admin-pairing.js';
import { activityQuerySchema, bulkRetryBodySchema, listJobsQuerySchema } from './admin-schemas.js';
import { parseBody } from './parse-body.js';
import { parseQuery } from './parse-query.js';

/**
 * The operator's routes, behind `adminKeys` (app.ts mounts adminAuth on /admin): hook jobs and
 * their replay, the status record and recent activity (the dashboard reads them).
 */
export function adminRoutes(router: Router, deps: AppDeps): void {
  const maxDepth = deps.settings.config.limits.maxJsonDepth;

  router.get('/admin/status', async (ctx) => {
    ctx.body = await readStatus(deps);
  });

  router.get('/admin/activity', async (ctx) => {
    const { minutes } = parseQuery(activityQuerySchema, ctx.query);
    ctx.body = { object: 'list', data: await readActivity(await deps.readyHub(), minutes) };
  });

  router.get('/admin/jobs', async (ctx) => {
    const query = parseQuery(listJobsQuerySchema, ctx.query);
    if (query.hook) findHook(deps, query.hook);
    ctx.body = { object: 'list', data: await listJobs(await deps.readyHub(), query) };
  });

  router.post('/admin/jobs/:id/retry', async (ctx) => {
    const id = ctx.params.id ?? '';
    const outcome = await retryJob(await deps.readyHub(), id);
    if (outcome === 'not_found') throw notFound(`There is no job '${id}'.`, 'job_not_found');
    if (outcome === 'not_failed') {
      throw new AppError(`The job '${id}' has not failed (it is queued, running or completed): nothing to retry.`, {
        status: 409,
        type: 'invalid_request_error',
        code: 'job_not_failed',
      });
    }
    ctx.state.log = { job_id: id, retried: true };
    ctx.status = 202;
    ctx.body = { id, status: 'queued' };
  });

  pairingRoutes(router, deps);

  router.post('/admin/hooks/:name/retry', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    const body = ctx.request.body ?? {};
    const { limit } = parseBody(bulkRetryBodySchema, body, maxDepth, 'an optional limit');
    const { retried } = await retryFailedJobs(await deps.readyHub(), hook.name, limit);
    ctx.state.log = { hook: hook.name, retried: retried.length };
    ctx.status = 202;
    ctx.body = { hook: hook.name, retried: retried.length, ids: retried };
  });
}
