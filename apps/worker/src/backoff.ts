import { DeliveryError } from '@switchboard/channels';
import type { BackoffStrategy } from 'bullmq';

/** A longer Retry-After is capped: the job is retried after this at the latest. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Exponential back-off from `baseMs` (doubling per attempt), unless the platform said when to
 * come back (Telegram `retry_after`, Discord `retry_after`, Slack `Retry-After`): then at least
 * that long, so a flood-controlled channel is not hammered until its attempts run out.
 */
export function retryBackoff(baseMs: number): BackoffStrategy {
  return (attemptsMade, _type, err) => {
    const exponential = baseMs * 2 ** Math.max(0, attemptsMade - 1);
    const asked = err instanceof DeliveryError ? err.options.retryAfterMs : undefined;
    if (asked === undefined) return exponential;
    return Math.max(exponential, Math.min(asked, MAX_RETRY_AFTER_MS));
  };
}
