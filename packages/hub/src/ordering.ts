import { DelayedError, Job, type Queue } from 'bullmq';
import { type HubRedis, inOneWrite } from './commands/index.js';
import { type HubKeys, JOB_FIELDS } from './keys.js';

/**
 * Per-conversation ordering: a conversation's messages are answered one at a time, in the order
 * they were accepted; different conversations run side by side.
 *
 * - enqueue (API, on accept): atomically with the dedupe claim, the message joins the end of its
 *   conversation's line, a Redis list of job ids. First in line, its job is queued to run now;
 *   behind others, it is queued parked (a delayed job).
 * - release (worker, once a message is done for good: delivered, or failed with no attempt left):
 *   the message leaves the line, and the one now first is woken (its delayed job promoted).
 * - takeTurn (worker, when a parked message comes up): it runs only if it is first in line, or no
 *   longer in line at all; otherwise it parks again, each time for longer.
 *
 * Wake-ups move a conversation on; a parked job's timer only bounds a wake-up that was missed —
 * a worker that died between release and wake-up does both again when its job runs again. The
 * timer is `recheckMs` times the messages ahead at enqueue, and doubles each time a message
 * parks again, always up to 32× (a message far back in its line cannot run soon anyway). A line entry whose job never reached the queue (the API died
 * between enqueue and add) is dropped once a message behind it has waited `orphanAfterMs`.
 * - markRetry + rejoin (an operator's retry of a job that failed for good, hub/replay.ts): its
 *   failure left the line, so the messages behind it moved on. The API marks the failed job and
 *   BullMQ moves it back to the queue; when it runs, the worker rejoins the line at its end
 *   (behind what waits there now, whose order is kept) and takes a turn like any parked message.
 *   Rejoining when it runs, not when it is retried, means no other message can find it first in
 *   line while BullMQ still has it as failed (takeTurn would drop it as finished).
 * All keys share the queue's hash slot (keys.ts), so this runs on Redis Cluster too.
 */
export interface OrderingOptions {
  /** Seconds an idle line and a dedupe key are kept. */
  retentionSeconds: number;
  /** A parked message's first timer; it doubles each time the message parks again. */
  recheckMs: number;
  /** How long a message waits behind a line entry whose job does not exist before dropping it. @defaultValue 30000 */
  orphanAfterMs?: number | undefined;
}

export type EnqueueOutcome =
  /** Lined up: queue its job. */
  | 'queued'
  /** A duplicate of a message already queued: queue nothing. */
  | 'duplicate'
  /** A duplicate whose job never reached the queue: queue it now. */
  | 'requeue';

const OUTCOMES: EnqueueOutcome[] = ['queued', 'duplicate', 'requeue'];
const MAX_PARK_FACTOR = 32;

export class ConversationOrder {
  readonly #orphanAfterMs: number;
  readonly #jobKeyPrefix: string;
  readonly #delayedKey: string;

  constructor(
    private readonly redis: HubRedis,
    private readonly keys: HubKeys,
    private readonly queue: Queue,
    private readonly options: OrderingOptions,
  ) {
    this.#orphanAfterMs = options.orphanAfterMs ?? 30_000;
    this.#jobKeyPrefix = queue.toKey('');
    this.#delayedKey = queue.toKey('delayed');
  }

  /**
   * Lines a message up; `dedupeKey` true when the job id was derived from the platform's dedupe
   * key. `parkMs` is how long its job sleeps if it waits (0: first in line, it runs now).
   */
  async enqueue(conversation: string, jobId: string, dedupeKey: boolean): Promise<{ outcome: EnqueueOutcome; parkMs: number }> {
    if (!dedupeKey) {
      // Nothing to claim: the push and the line's lifetime, sent together in one write (no script
      // call; kill -9 cannot come between them).
      const line = this.keys.order(conversation);
      const [length] = await inOneWrite(this.redis, () =>
        Promise.all([this.redis.rpush(line, jobId), this.redis.expire(line, this.options.retentionSeconds)]),
      );
      return { outcome: 'queued', parkMs: this.firstParkMs(length - 1) };
    }
    const [outcome, ahead] = await this.redis.sbOrderEnqueue(
      this.keys.order(conversation),
      this.keys.dedupe(jobId),
      this.queue.toKey(jobId),
      jobId,
      '1', // a dedupe key to claim (the script's '0' case is the RPUSH above)
      this.options.retentionSeconds,
    );
    return { outcome: OUTCOMES[outcome] ?? 'queued', parkMs: this.firstParkMs(ahead) };
  }

  /** How long a message lined up behind `ahead` unfinished ones first sleeps (0: it runs now). */
  firstParkMs(ahead: number): number {
    return this.options.recheckMs * Math.min(ahead, MAX_PARK_FACTOR);
  }

  /** How long a message that came up too early sleeps the `parks`-th time it parks again (0 for the first). */
  parkDelayMs(parks: number): number {
    return this.options.recheckMs * Math.min(2 ** Math.max(parks, 0), MAX_PARK_FACTOR);
  }

  /**
   * For a job that was queued behind others, when it comes up: resolves when it may run now;
   * otherwise parks it again (longer each time) and throws BullMQ's `DelayedError`, which the
   * processor must let through (no attempt is spent).
   *
   * @param acceptedAt - Unix ms when the message was accepted.
   */
  async takeTurn(job: Job, token: string | undefined, conversation: string, acceptedAt: number): Promise<void> {
    const jobId = job.id ?? '';
    const orphanCheck = Date.now() - acceptedAt >= this.#orphanAfterMs ? '1' : '0';
    const [run] = await this.redis.sbOrderAcquire(this.keys.order(conversation), jobId, this.#jobKeyPrefix, orphanCheck);
    if (run === 1) return;
    await job.moveToDelayed(Date.now() + this.parkDelayMs(job.attemptsStarted), token);
    // The message ahead may have finished while this one looked: its release then found this job
    // running and could not wake it.
    await this.wakeIfFirst(conversation, jobId);
    throw new DelayedError();
  }

  /**
   * The message is done for good: it leaves its line, `fields` are set on its job hash in the
   * same step, its dedupe key (unless `deduped` is false: it has none) is marked done, and the
   * message now first is woken if it is parked. Safe to repeat.
   */
  async release(
    conversation: string,
    jobId: string,
    fields: Record<string, string | number>,
    { deduped = true }: { deduped?: boolean } = {},
  ): Promise<void> {
    const next = await this.redis.sbOrderRelease(
      this.keys.order(conversation),
      this.queue.toKey(jobId),
      this.#delayedKey,
      this.keys.dedupe(jobId),
      jobId,
      this.options.retentionSeconds,
      deduped ? '1' : '0',
      ...Object.entries(fields).flat(),
    );
    if (next) await this.wake(next);
  }

  /** Marks a failed job for a retry (see the class comment); false when the job is not failed. */
  async markRetry(jobId: string): Promise<boolean> {
    const marked = await this.redis.sbOrderMarkRetry(
      this.queue.toKey(jobId),
      this.queue.toKey('failed'),
      jobId,
      JOB_FIELDS.rejoin,
    );
    return marked === 1;
  }

  /**
   * For a retried job as it runs: back into its line, at the end, with its final `done` taken off
   * and its feed (ended by the failure) dropped.
   * Returns false when the job was not marked for a retry (nothing changes).
   */
  async rejoin(conversation: string, jobId: string): Promise<boolean> {
    const ahead = await this.redis.sbOrderRejoin(
      this.keys.order(conversation),
      this.queue.toKey(jobId),
      this.keys.feed(jobId),
      jobId,
      this.options.retentionSeconds,
      JOB_FIELDS.rejoin,
      JOB_FIELDS.done,
    );
    return ahead >= 0;
  }

  /**
   * For a message just queued parked: if the one ahead of it finished meanwhile (its release
   * found nothing to wake yet), it wakes itself.
   */
  async wakeIfFirst(conversation: string, jobId: string): Promise<void> {
    if ((await this.redis.lindex(this.keys.order(conversation), 0)) === jobId) await this.wake(jobId);
  }

  /** Promotes a parked job; a job that is not parked (running, or already woken) is left alone. */
  async wake(jobId: string): Promise<void> {
    try {
      await new Job(this.queue, 'message', {}, {}, jobId).promote();
    } catch (err) {
      if (!/not in the delayed state|Missing key/i.test((err as Error).message)) throw err;
    }
  }
}
