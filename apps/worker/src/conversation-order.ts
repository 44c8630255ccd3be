import { DelayedError, type Job, type Queue } from 'bullmq';

const PENDING = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused']);

/**
 * Messages of one conversation are answered in arrival order: a job whose predecessor is still
 * queued, running or waiting for a retry steps back for a moment (no attempt is spent) and is
 * picked up again later. A finished, failed or expired predecessor lets it through.
 */
export async function waitForPredecessor(job: Job, token: string | undefined, queue: Queue, after: string | null): Promise<void> {
  if (!after) return;
  const state = await queue.getJobState(after);
  if (!PENDING.has(state)) return;
  await job.moveToDelayed(Date.now() + 150, token);
  throw new DelayedError();
}
