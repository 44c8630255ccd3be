import type { BackoffStrategy, Job } from 'bullmq';

/**
 * The one retry owner for hook messages: the job's attempts. A message's model call and its
 * delivery share them; nothing below retries on its own (the worker's providers have their
 * retries off, and a model's fallbacks are tried within one attempt), so one message costs at
 * most `attempts × (1 + fallbacks)` model calls.
 */
export const RETRY_BACKOFF = 'switchboard';

/** A longer Retry-After is capped: the job is tried again after this at the latest. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

export interface RetryPolicy {
  /** Attempts per message, answer and delivery together. */
  attempts: number;
  /** The first retry's delay; it doubles each attempt. */
  backoffMs: number;
}

/** The BullMQ options that put a job under this policy. */
export function retryJobOptions(policy: RetryPolicy) {
  return { attempts: policy.attempts, backoff: { type: RETRY_BACKOFF, delay: policy.backoffMs } };
}

/**
 * Exponential back-off from `baseMs`, unless the failure said when to come back — a model's or a
 * platform's 429/503 `Retry-After`, Telegram's `parameters.retry_after`, Discord's
 * `retry_after`, carried by the error as `retryAfterMs`: then exactly that long (capped), so a
 * rate-limited upstream is neither hammered nor left waiting longer than it asked.
 */
export function retryBackoff(baseMs: number): BackoffStrategy {
  return (attemptsMade, _type, err) => {
    const asked = retryAfterMsOf(err);
    if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
    return baseMs * 2 ** Math.max(0, attemptsMade - 1);
  };
}

/** The delay an error asks for (`retryAfterMs` on a DeliveryError or an AppError), if any. */
export function retryAfterMsOf(err: unknown): number | undefined {
  const value = (err as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** True when a failure of the running attempt would fail the job for good. */
export function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
