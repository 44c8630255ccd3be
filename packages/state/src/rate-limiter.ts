import type { Redis } from 'ioredis';
import type { StateKeys } from './keys.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows counted in Redis (INCR plus an expiry), so every API process draws on
 * one budget per subject. A burst of up to twice the limit is possible across a window edge; in
 * exchange a decision costs one round trip.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
  ) {}

  async hit(subject: string, limit: number, now = Date.now()): Promise<RateDecision> {
    const window = Math.floor(now / 60_000);
    const key = this.keys.rateWindow(subject, window);
    const [[, count]] = (await this.redis.multi().incr(key).pexpire(key, 61_000).exec()) as [[Error | null, number]];
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  }
}
