import { readQueuedMessage } from '@switchboard/protocol';
import { Job, type JobType } from 'bullmq';
import { readReply } from './exchange.js';
import type { Hub, HubShards } from './hub.js';
import { JOB_FIELDS } from './keys.js';

/**
 * The operator's view of hook jobs, and replay: a job that failed for good is run again through
 * the same pipeline. Its hash keeps the reply and what was delivered (exchange.ts), so a failed
 * delivery is sent again from the stored reply without asking the model, and only the pieces the
 * platform does not have yet; a job that failed before it had a reply asks the model then. The
 * retried job takes a new turn in its conversation (ordering.ts `markRetry`, `rejoin`).
 */

export const JOB_STATES = ['failed', 'completed', 'active', 'waiting', 'delayed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** One job as the operator's list shows it. */
export interface AdminJob {
  id: string;
  hook: string;
  state: JobState;
  /** The user's message, cut to 200 characters. */
  text: string;
  /** Why its last attempt failed (a failed job, or one waiting for its next attempt). */
  error: string | null;
  attempts: number;
  /** A reply is stored: a retry delivers it without asking the model. */
  answered: boolean;
  /** Pieces of the reply the platform has. */
  delivered: number;
  created_at: string;
  finished_at: string | null;
}

export interface ListOptions {
  state: JobState;
  /** Only this hook's jobs. */
  hook?: string | undefined;
  /** @defaultValue 50 */
  limit?: number | undefined;
}

/** Jobs looked at per page, and at most in one listing (a listing filtered by hook stays bounded). */
const PAGE = 200;
const MAX_SCANNED = 5_000;

/** The newest jobs in `state` (of one hook, when given), newest first, from every shard. */
export async function listJobs(hubs: HubShards, options: ListOptions): Promise<AdminJob[]> {
  const limit = options.limit ?? 50;
  const perShard = await Promise.all(hubs.shards.map((hub) => listShardJobs(hub, options, limit)));
  if (perShard.length === 1) return perShard[0]!;
  // Each shard's list is newest first; the newest of them all, by when they finished (else were created).
  const when = (job: AdminJob) => Date.parse(job.finished_at ?? job.created_at);
  return perShard
    .flat()
    .sort((a, b) => when(b) - when(a))
    .slice(0, limit);
}

async function listShardJobs(hub: Hub, options: ListOptions, limit: number): Promise<AdminJob[]> {
  const found: AdminJob[] = [];
  for (let start = 0; start < MAX_SCANNED && found.length < limit; start += PAGE) {
    const page = await jobsOfState(hub, options.state, start, start + PAGE - 1, false);
    for (const job of await describe(hub, page, options.state)) {
      if (found.length < limit && (!options.hook || job.hook === options.hook)) found.push(job);
    }
    if (page.length < PAGE) break;
  }
  return found;
}

export type RetryOutcome = 'retried' | 'not_found' | 'not_failed';

/**
 * Runs a job that failed for good again (see the file comment). `not_failed` when it is not in
 * the failed state (running, completed, or just retried by someone else).
 */
export async function retryJob(hubs: HubShards, id: string): Promise<RetryOutcome> {
  const hub = hubs.forJob(id);
  const job = await Job.fromId(hub.queue, id);
  if (!job) return 'not_found';
  if (!(await hub.order.markRetry(id))) return 'not_failed';
  try {
    // A fresh set of attempts; attemptsStarted goes on counting, so the run reads what earlier runs did.
    await job.retry('failed', { resetAttemptsMade: true });
  } catch (err) {
    // Another retry moved it first. The mark stays: it only matters to a run that finds `done`.
    if (/not in the failed state|is not in|Missing key|locked/i.test((err as Error).message)) return 'not_failed';
    throw err;
  }
  return 'retried';
}

/** Retries a hook's failed jobs, oldest failure first (across shards); at most `limit`. */
export async function retryFailedJobs(hubs: HubShards, hook: string, limit = 1_000): Promise<{ retried: string[] }> {
  const candidates: Job[] = [];
  for (const hub of hubs.shards) {
    const ofShard: Job[] = [];
    for (let start = 0; start < MAX_SCANNED && ofShard.length < limit; start += PAGE) {
      const page = await jobsOfState(hub, 'failed', start, start + PAGE - 1, true);
      for (const job of page) if (ofShard.length < limit && job.id && hookOf(job.data) === hook) ofShard.push(job);
      if (page.length < PAGE) break;
    }
    candidates.push(...ofShard);
  }
  if (hubs.shards.length > 1) candidates.sort((a, b) => (a.finishedOn ?? 0) - (b.finishedOn ?? 0));
  const retried: string[] = [];
  // One at a time: they rejoin their lines in the order they failed.
  for (const job of candidates.slice(0, limit)) if ((await retryJob(hubs, job.id!)) === 'retried') retried.push(job.id!);
  return { retried };
}

async function jobsOfState(hub: Hub, state: JobState, start: number, end: number, asc: boolean): Promise<Job[]> {
  const types: JobType[] = state === 'waiting' ? ['waiting', 'prioritized', 'paused'] : [state];
  return (await hub.queue.getJobs(types, start, end, asc)).filter((job): job is Job => Boolean(job));
}

/** The jobs with the pipeline's own fields (reply, delivered), read in one round trip. */
async function describe(hub: Hub, jobs: Job[], state: JobState): Promise<AdminJob[]> {
  if (jobs.length === 0) return [];
  const pipeline = hub.redis.pipeline();
  for (const job of jobs) pipeline.hmget(hub.queue.toKey(job.id ?? ''), JOB_FIELDS.reply, JOB_FIELDS.delivered);
  const fields = (await pipeline.exec()) ?? [];
  return jobs.map((job, i) => {
    const [reply, delivered] = (fields[i]?.[1] ?? []) as (string | null)[];
    const queued = readQueuedMessage(job.data);
    return {
      id: job.id ?? '',
      hook: queued?.message.hook ?? '',
      state,
      text: (queued?.message.message.text ?? '').slice(0, 200),
      error: job.failedReason || null,
      attempts: job.attemptsMade,
      answered: readReply(reply) !== null || queued?.legacy?.reply !== undefined,
      delivered: Number(delivered ?? 0) || 0,
      created_at: new Date(job.timestamp).toISOString(),
      finished_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    };
  });
}

function hookOf(data: unknown): string | undefined {
  return readQueuedMessage(data)?.message.hook;
}
