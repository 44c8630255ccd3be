import type Router from '@koa/router';
import { AppError, notFound } from '@switchboard/protocol';
import { redisReady } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import type { Hook } from '../hook-registry.js';
import { requireJsonContentType } from '../middleware/json-guards.js';
import { readRawBody } from '../middleware/raw-body.js';
import { acceptMessage } from '../services/hook-service.js';
import { readJob } from '../services/job-service.js';

/** Inbound webhooks: every hook type behind one route; the adapter decides what the body means. */
export function hooksRoutes(router: Router, deps: AppDeps): void {
  const hookLimit = deps.settings.config.limits.hookMaxBodyBytes;

  router.post('/hooks/:name', async (ctx) => {
    const hook = deps.hooks.get(ctx.params.name ?? '');
    if (!hook) throw notFound(`There is no hook named '${ctx.params.name}'.`, 'hook_not_found');
    requireJsonContentType(ctx);
    await limitHook(deps, hook);
    const rawBody = await readRawBody(ctx.req, hookLimit);
    const inbound = hook.adapter.receive({ headers: ctx.headers, rawBody, now: Date.now() });
    const answer =
      inbound.kind === 'answer' ? inbound.answer : inbound.ack(await acceptMessage(deps, hook.name, inbound.message));
    ctx.status = answer.status;
    ctx.body = answer.body;
  });

  router.get('/hooks/:name/jobs/:id', async (ctx) => {
    const hook = deps.hooks.get(ctx.params.name ?? '');
    if (!hook) throw notFound(`There is no hook named '${ctx.params.name}'.`, 'hook_not_found');
    if (!hook.authorize) {
      throw new AppError('Job look-ups are only offered on generic hooks.', {
        status: 404,
        type: 'invalid_request_error',
        code: 'not_found',
      });
    }
    hook.authorize(ctx.headers);
    ctx.body = await readJob(deps, hook.name, ctx.params.id ?? '');
  });
}

/** A hook's own `rateLimit` (all senders together): 429 with Retry-After past it. */
async function limitHook(deps: AppDeps, hook: Hook): Promise<void> {
  const limit = hook.config.rateLimit?.requestsPerMinute;
  if (!limit || !(await redisReady(deps.redis))) return; // without Redis the hook answers 503 anyway
  const decision = await deps.rateLimiter.hit(`hook:${hook.name}`, limit).catch(() => null);
  if (decision && !decision.allowed) {
    throw new AppError(`Rate limit reached for this hook: ${limit} requests per minute.`, {
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      headers: { 'Retry-After': String(decision.resetSeconds) },
    });
  }
}
