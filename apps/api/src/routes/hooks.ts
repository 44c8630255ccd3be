import type Router from '@koa/router';
import type { Hook, HttpAnswer, Inbound } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { AppError, type InboundMessage, methodNotAllowed } from '@switchboard/protocol';
import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import { clientSignal } from '../middleware/client-signal.js';
import { requireContentType } from '../middleware/json-guards.js';
import { readRawBody } from '../middleware/raw-body.js';
import { gateMessage } from '../services/access-gate.js';
import { answerClick, decideApproval } from '../services/approval-service.js';
import { acceptMessage, findHook, gated } from '../services/hook-service.js';
import { resumeFrom, streamJobFeed } from '../services/job-feed-service.js';
import { readJob } from '../services/job-service.js';
import { waitForJob } from '../services/job-wait.js';
import { parseBody } from './parse-body.js';

const approvalBodySchema = z.strictObject({ approve: z.boolean() });

/** Inbound webhooks: every hook type behind one route; the adapter decides what the body means. */
export function hooksRoutes(router: Router, deps: AppDeps): void {
  const hookLimit = deps.settings.config.limits.hookMaxBodyBytes;

  router.post('/hooks/:name', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    requireContentType(ctx, hook.bodyTypes);
    const rawBody = await readRawBody(ctx.req, hookLimit);
    const inbound = await hook.receive({ headers: ctx.headers, rawBody, now: Date.now() });
    ctx.state.log = { hook: hook.name };
    const answer = await answerFor(inbound);
    ctx.status = answer.status;
    ctx.body = answer.body;

    async function answerFor(inbound: Inbound): Promise<HttpAnswer> {
      if (inbound.kind === 'answer') return inbound.answer;
      if (inbound.kind === 'click') {
        ctx.state.log = { hook: hook.name, job_id: inbound.click.jobId, approve: inbound.click.approve };
        return answerClick(deps, hook, inbound.click);
      }
      if (inbound.kind === 'messages') {
        // In order, one at a time: a failure answers 503 and the platform's retry repeats only duplicates.
        for (const message of inbound.messages) await queue(message);
        return inbound.ack();
      }
      const queued = await queue(inbound.message);
      // Not for this bot (access, a group message not addressed to it): acknowledged, nothing queued.
      if (!queued) return inbound.ignored?.() ?? inbound.ack('', false);
      // A caller held for its reply gets the job once it is over; a repeat is never answered with it.
      const view =
        inbound.waitMs && !queued.duplicate
          ? await waitForJob(deps, hook.name, queued.jobId, inbound.waitMs, clientSignal(ctx))
          : null;
      return view ? { status: 200, body: view } : inbound.ack(queued.jobId, queued.duplicate);
    }

    async function queue(received: InboundMessage): Promise<{ jobId: string; duplicate: boolean } | null> {
      deps.metrics?.hookReceived.inc({ hook: hook.name });
      const message = await gated(deps, () => gateMessage(deps, hook, received));
      if (!message) {
        ctx.state.log = { hook: hook.name, ignored: true };
        return null;
      }
      const queued = await acceptMessage(deps, hook.name, message);
      ctx.state.log = { hook: hook.name, job_id: queued.jobId, duplicate: queued.duplicate };
      return queued;
    }
  });

  // A platform's subscription handshake (WhatsApp), for the channels that define one; else 405.
  router.get('/hooks/:name', async (ctx) => {
    const hook = findHook(deps, ctx.params.name);
    if (!hook.handshake) throw methodNotAllowed(ctx.method, ctx.path, ['POST']);
    ctx.state.log = { hook: hook.name };
    const answer = hook.handshake(new URLSearchParams(ctx.querystring));
    ctx.status = answer.status;
    ctx.body = answer.body;
  });

  router.get('/hooks/:name/jobs/:id', async (ctx) => {
    const hook = readableHook(deps, ctx.params.name, ctx.headers);
    ctx.body = await readJob(deps, hook.name, ctx.params.id ?? '');
  });

  // A person's yes or no to the tool call the job waits for (hooks.<name>.approve).
  router.post('/hooks/:name/jobs/:id/approval', async (ctx) => {
    const hook = readableHook(deps, ctx.params.name, ctx.headers);
    const { approve } = parseBody(approvalBodySchema, ctx.request.body, 4, 'approve: true or false');
    ctx.state.log = { hook: hook.name, job_id: ctx.params.id, approve };
    const { id, tool } = await decideApproval(deps, hook.name, ctx.params.id ?? '', approve);
    ctx.body = { id, tool, approve };
  });

  // The reply as it is written: SSE, resumable with Last-Event-ID.
  router.get('/hooks/:name/jobs/:id/stream', async (ctx) => {
    const hook = readableHook(deps, ctx.params.name, ctx.headers);
    const after = resumeFrom(ctx.get('last-event-id'));
    const signal = clientSignal(ctx);
    ctx.state.log = { hook: hook.name, job_id: ctx.params.id };
    await streamJobFeed(deps, ctx.res, hook, ctx.params.id ?? '', after, signal, () => {
      ctx.respond = false;
    });
  });
}

/** The hook, when it lets callers read their jobs and the headers hold its credentials; else 404 / 401. */
function readableHook(
  deps: Pick<AppDeps, 'hooks'>,
  name: string | undefined,
  headers: Record<string, string | string[] | undefined>,
): Hook<HookConfig> {
  const hook = findHook(deps, name);
  if (!hook.authorizeJobRead) {
    throw new AppError('Job look-ups are only offered on generic and mapped hooks.', {
      status: 404,
      type: 'invalid_request_error',
      code: 'not_found',
    });
  }
  hook.authorizeJobRead(headers);
  return hook;
}
