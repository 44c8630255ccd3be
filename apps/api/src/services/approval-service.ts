import type { ApprovalClick, ApprovalOutcome, Hook, HttpAnswer } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { readJobView } from '@switchboard/hub';
import { AppError, notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';

/** Who clicked a button in the chat, and on which call (the generic route has neither: the hook's token decides). */
export interface Clicker {
  user: string;
  /** How the platform names them, kept with the decision for the edited question. */
  userName: string;
  key: string;
}

/**
 * A person's decision on the tool call a job waits for (`hooks.<name>.approve`): recorded once
 * (the first decision counts), then the delayed job is promoted so a worker takes it up at once.
 * 409 when the job waits for nothing (never did, decided already, finished), for another call than
 * the clicked one, or its time is over; 403 when a clicker is not among the call's approvers.
 */
export async function decideApproval(
  deps: Pick<AppDeps, 'readyHub'>,
  hook: string,
  id: string,
  approve: boolean,
  clicker?: Clicker,
) {
  const hub = (await deps.readyHub()).forJob(id);
  const view = await readJobView(hub, hook, id);
  if (!view) throw notFound(`There is no job '${id}' on this hook.`, 'job_not_found');
  const waiting = view.status === 'awaiting_approval' ? await hub.tools.awaiting(id) : null;
  if (!waiting || waiting.decision || (clicker && clicker.key !== waiting.awaiting.key)) throw notWaiting();
  if (clicker && !(waiting.awaiting.approvers ?? []).includes(clicker.user))
    throw new AppError('Only an approver of this call may decide on it.', {
      status: 403,
      type: 'permission_error',
      code: 'not_an_approver',
    });
  if (Date.now() >= waiting.awaiting.until)
    throw conflict('The approval came after its time ran out: the call was denied.', 'approval_expired');
  const mine = { approve, at: Date.now(), ...(clicker ? { by: clicker.user, name: clicker.userName } : {}) };
  const decision = await hub.tools.decide(id, waiting.awaiting.key, mine);
  // Delayed until the deadline: due now. A job already due or running needs nothing.
  await (await hub.queue.getJob(id))?.promote().catch(() => {});
  // Two decisions at once: the first one recorded counts, and the other learns it came second.
  if (decision.at !== mine.at || decision.by !== mine.by) throw notWaiting();
  return { id, tool: waiting.awaiting.tool, arguments: waiting.awaiting.arguments, approve: decision.approve };
}

/** What a click that changes nothing is told, by the code `decideApproval` refused it with. */
const REFUSALS: Record<string, (ApprovalOutcome & { kind: 'refused' })['reason']> = {
  job_not_found: 'not_waiting',
  not_awaiting_approval: 'not_waiting',
  approval_expired: 'expired',
  not_an_approver: 'not_approver',
};

/**
 * A click on an approval's buttons in the chat (the channel verified the request): the decision,
 * through `decideApproval` like the generic route's, then the channel answers the click — a
 * decision acknowledged (the worker edits the question as it resumes the job, taking its turn of
 * the send limiter), or a refusal only the clicker sees. A platform failure there is a warning,
 * and the click's request is still answered 200: the decision stands.
 */
export async function answerClick(
  deps: Pick<AppDeps, 'readyHub' | 'logger'>,
  hook: Hook<HookConfig>,
  click: ApprovalClick,
): Promise<HttpAnswer> {
  const outcome = await decideApproval(deps, hook.name, click.jobId, click.approve, click).then(
    (decided): ApprovalOutcome & { kind: 'decided' } => ({
      kind: 'decided',
      approve: decided.approve,
      by: click.user,
      byName: click.userName,
      tool: decided.tool,
      arguments: decided.arguments,
    }),
    (err: unknown): ApprovalOutcome & { kind: 'refused' } => {
      const reason = err instanceof AppError && err.code ? REFUSALS[err.code] : undefined;
      if (!reason) throw err;
      return { kind: 'refused', reason };
    },
  );
  try {
    return (await hook.approvals?.answer(click, outcome)) ?? { status: 200, body: { ok: true } };
  } catch (err) {
    deps.logger.warn('the approval click could not be answered on the platform', {
      hook: hook.name,
      job_id: click.jobId,
      error: (err as Error).message,
    });
    return { status: 200, body: { ok: true } };
  }
}

const conflict = (message: string, code: string) => new AppError(message, { status: 409, type: 'invalid_request_error', code });
const notWaiting = () => conflict('The job is not waiting for an approval.', 'not_awaiting_approval');
