import { DelayedError, type Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';

const PENDING = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused']);

/**
 * Messages of one conversation are answered in arrival order: a job whose predecessor is still
 * queued, running or waiting for a retry steps back (no attempt is spent) until the predecessor
 * wakes it (wakeSuccessor) or `recheckMs` passes. A finished, failed or expired predecessor lets
 * it through.
 */
export async function waitForPredecessor(
  job: Job,
  token: string | undefined,
  queue: Queue,
  after: string | null,
  recheckMs: number,
): Promise<void> {
  if (!after) return;
  const state = await queue.getJobState(after);
  if (!PENDING.has(state)) return;
  await job.moveToDelayed(Date.now() + recheckMs, token);
  throw new DelayedError();
}

/**
 * When a job is done for good (completed, or failed with no attempt left), its conversation's
 * next message is woken at once instead of at the end of its short wait.
 */
export async function wakeSuccessor(queue: Queue, redis: Redis, successorKey: string): Promise<void> {
  const next = await redis.get(successorKey);
  if (!next) return;
  const job = await queue.getJob(next);
  if (job && (await job.isDelayed())) await job.promote().catch(() => {}); // it may have just woken itself
}
