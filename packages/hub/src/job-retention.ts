import type { JobsOptions, Queue, Worker } from 'bullmq';
import type { HubRedis } from './commands/index.js';

/** Most completed jobs one trim removes (one script call; a larger excess takes several). */
const TRIM_LIMIT = 1000;
/** Completions between two trims at most (a 1 % slack at the default `keepJobs`). */
const MAX_TRIM_EVERY = 100;

/**
 * What a shard keeps of finished messages: completed ones for `ageSeconds` and at most
 * `keepJobs` of them, failed ones for seven times as long and as many.
 *
 * Failed jobs are rare: BullMQ removes them as each fails (`removeOnFail`). Completed ones are
 * every message, and BullMQ's own removal (`removeOnComplete: {age, count}`) costs five commands
 * at each completion (a range read, the removed job's read and DEL, a rank trim, an age read) to
 * remove the one job the new one pushes out. Instead the queue keeps completed jobs
 * (`removeOnComplete: false`) and each worker trims the set every `every` completions it saw, in
 * one script (commands/trim-completed.ts): oldest first, what is beyond the count or older than
 * the age. A shard then holds at most `keepJobs` + `every` completed jobs per worker process
 * between trims (`every` is 1 % of `keepJobs`, at most 100), and a worker trims once when it
 * starts, so one killed between trims leaves no more behind than the next trim removes.
 */
export class JobRetention {
  /** Completions between two trims of one worker. */
  readonly every: number;
  #sinceTrim = 0;
  #running: Promise<number> | null = null;
  #next: Promise<number> | null = null;

  constructor(
    private readonly redis: HubRedis,
    private readonly queue: Queue,
    readonly ageSeconds: number,
    readonly keepJobs: number,
  ) {
    this.every = trimEvery(keepJobs);
  }

  /** The retention options of every job this shard queues. */
  jobOptions(): Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> {
    return { removeOnComplete: false, removeOnFail: { age: this.ageSeconds * 7, count: this.keepJobs } };
  }

  /**
   * Trims as `worker` (a worker of this shard's queue) completes jobs, and once now; a failed trim
   * goes to `onError` (the next one catches up).
   */
  follow(worker: Worker, onError: (err: Error) => void): void {
    const trim = () => {
      this.trim().catch(onError);
    };
    worker.on('completed', () => {
      if (++this.#sinceTrim >= this.every) trim();
    });
    trim();
  }

  /**
   * Removes what is beyond the bounds now; resolves with how many jobs went. One trim runs at a
   * time: asked while one runs, one more follows it (for what completed meanwhile).
   */
  trim(now?: number): Promise<number> {
    this.#sinceTrim = 0;
    if (!this.#running) {
      this.#running = this.#trimAll(now ?? Date.now()).finally(() => {
        this.#running = null;
      });
      return this.#running;
    }
    this.#next ??= this.#running
      .catch(() => 0)
      .then(() => {
        this.#next = null;
        return this.trim(now);
      });
    return this.#next;
  }

  async #trimAll(now: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await this.redis.sbTrimCompleted(
        this.queue.toKey('completed'),
        this.queue.toKey(''),
        this.keepJobs,
        now - this.ageSeconds * 1000,
        TRIM_LIMIT,
      );
      removed += n;
      if (n < TRIM_LIMIT) return removed;
    }
  }
}

/** Completions between two trims: 1 % of `keepJobs`, at least 1, at most 100. */
export function trimEvery(keepJobs: number): number {
  return Math.max(1, Math.min(MAX_TRIM_EVERY, Math.floor(keepJobs / 100)));
}
