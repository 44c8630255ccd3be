import { routeDelivery } from '@switchboard/channels';
import type { Reply } from '@switchboard/hub';
import type { WorkerDeps } from './deps.js';
import type { MessageJob } from './message-job.js';

/** The platform was left between two pieces of a reply because the worker is shutting down. */
export class DeliveryPaused extends Error {
  override name = 'DeliveryPaused';
}

/**
 * Sends the pieces of the reply the platform does not have yet, recording each one (one Redis
 * write) as soon as the platform accepted it and before the next is posted, so a retry resumes at
 * the first piece not delivered. The last piece is recorded by the release that follows at once
 * (`finalFields`: done, with every piece delivered), not by a write of its own. What is left is
 * the time between the platform accepting a piece and that write: a crash there sends the piece
 * again, with the same idempotency key (derived from the job and the piece), which the platforms
 * that dedupe use to return the piece they have. A
 * shutdown stops it between pieces, never inside one. A message that names another hook to
 * deliver through (a mapped hook's target) goes out through that hook.
 *
 * @returns How many pieces the reply has.
 */
export async function deliverRest(
  deps: WorkerDeps,
  job: MessageJob,
  reply: Reply,
  from: number,
  signal: AbortSignal,
): Promise<number> {
  const route = routeDelivery(deps.hooks, job.hook, job.queued.message);
  const parts = route.hook.split(reply.text);
  const meta = { jobId: job.jobId, hook: job.hook.name, model: reply.model, created: reply.created };
  for (let index = from; index < parts.length; index++) {
    if (signal.aborted) throw new DeliveryPaused('shutting down between two pieces of a reply');
    const send = () => route.hook.deliver(route.message, parts[index]!, index, meta, signal);
    if (deps.tracing) {
      const attributes = { 'switchboard.platform': route.hook.config.type, 'switchboard.piece': index };
      await deps.tracing.span('deliver reply', { kind: 'client', attributes }, send);
    } else await send();
    if (index + 1 < parts.length) await deps.hub.exchange.delivered(job.jobId, index + 1);
  }
  return parts.length;
}
