import type Router from '@koa/router';
import { AppError, type InboundMessage } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';
import { requireJsonContentType } from '../middleware/json-guards.js';
import { readRawBody } from '../middleware/raw-body.js';
import { acceptMessage, findHook } from '../services/hook-service.js';
import { readJob } from '../services/job-service.js';

/** Inbound webhooks: every hook type behind one route; the adapter decides what the body means. */
export function hooksRoutes(router: Router, deps: AppDeps): void {
  const hookLimit = deps.settings.config.limits.hookMaxBodyBytes;

  router.post('/hooks/:name', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    requireJsonContentType(ctx);
    const rawBody = await readRawBody(ctx.req, hookLimit);
    const inbound = hook.receive({ headers: ctx.headers, rawBody, now: Date.now() });
    ctx.state.log = { hook: hook.name };
    const answer = inbound.kind === 'answer' ? inbound.answer : inbound.ack(await queue(inbound.message));
    ctx.status = answer.status;
    ctx.body = answer.body;

    async function queue(message: InboundMessage): Promise<string> {
      const queued = await acceptMessage(deps, hook.name, message);
      ctx.state.log = { hook: hook.name, job_id: queued.jobId, duplicate: queued.duplicate };
      return queued.jobId;
    }
  });

  router.get('/hooks/:name/jobs/:id', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    if (!hook.authorizeJobRead) {
      throw new AppError('Job look-ups are only offered on generic hooks.', {
        status: 404,
        type: 'invalid_request_error',
        code: 'not_found',
      });
    }
    hook.authorizeJobRead(ctx.headers);
    ctx.body = await readJob(deps, hook.name, ctx.params.id ?? '');
  });
}
