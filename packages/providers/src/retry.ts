import type { CancelSignal } from '@switchboard/http';
import { parseRetryAfter } from '@switchboard/protocol';

/**
 * Back-off between upstream attempts: exponential from 250 ms with full jitter (so many clients
 * retrying together spread out), capped at 8 s; an upstream's `Retry-After` (seconds or an HTTP
 * date) wins when it asks for longer. Retry-After beyond `maxWaitMs` means: do not retry.
 */
export function retryDelayMs(attempt: number, retryAfter: string | undefined, maxWaitMs = 30_000): number | null {
  const backoff = Math.min(8_000, 250 * 2 ** attempt) * (0.5 + Math.random() * 0.5);
  const asked = parseRetryAfter(retryAfter);
  if (asked === undefined) return backoff;
  if (asked > maxWaitMs) return null;
  return Math.max(backoff, asked);
}

/** Waits `ms`, or rejects at once with the signal's reason when the client hangs up. */
export function sleep(ms: number, signal: CancelSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
