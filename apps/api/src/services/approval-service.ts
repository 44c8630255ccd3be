import { readJobView } from '@switchboard/hub';
import { AppError, notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';

/**
 * A person's decision on the tool call a job waits for (`hooks.<name>.approve`): recorded once
 * (the first decision counts), then the delayed job is promoted so a worker takes it up at once.
 * 409 when the job waits for nothing (never did, decided already, finished) or its time is over.
 */
export async function decideApproval(deps: AppDeps, hook: string, id: string, approve: boolean) {
  const hub = (await deps.readyHub()).forJob(id);
  const view = await readJobView(hub, hook, id);
  if (!view) throw notFound(`There is no job '${id}' on this hook.`, 'job_not_found');
  const waiting = view.status === 'awaiting_approval' ? await hub.tools.awaiting(id) : null;
  if (!waiting || waiting.decision) throw conflict('The job is not waiting for an approval.', 'not_awaiting_approval');
  if (Date.now() >= waiting.awaiting.until)
    throw conflict('The approval came after its time ran out: the call was denied.', 'approval_expired');
  const decision = await hub.tools.decide(id, waiting.awaiting.key, { approve, at: Date.now() });
  // Delayed until the deadline: due now. A job already due or running needs nothing.
  await (await hub.queue.getJob(id))?.promote().catch(() => {});
  return { id, tool: waiting.awaiting.tool, approve: decision.approve };
}

const conflict = (message: string, code: string) => new AppError(message, { status: 409, type: 'invalid_request_error', code });
