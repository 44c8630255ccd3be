import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient } from './redis.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Hits in this window so far, this one included. */
  count: number;
  /** The window's number (minutes since the epoch). */
  window: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/** KEYS[1] the subject's window counter; ARGV[1] its lifetime, ms. Returns the count so far. */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

/**
 * Fixed one-minute windows counted in Redis (one script: INCR, and an expiry on the first hit),
 * so every API process draws on one budget per subject. A burst of up to twice the limit is
 * possible across a window edge; in exchange a decision costs one round trip.
 */
type RateRedis = RedisClient & { sbRateHit(key: string, ttlMs: number): Promise<number> };

export class RateLimiter {
  readonly #redis: RateRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
  ) {
    defineCommands(redis, { sbRateHit: { numberOfKeys: 1, lua: HIT } });
    this.#redis = redis as RateRedis;
  }

  async hit(subject: string, limit: number, now = Date.now()): Promise<RateDecision> {
    const window = Math.floor(now / 60_000);
    const count = await this.#redis.sbRateHit(this.keys.rateWindow(subject, window), 61_000);
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), count, window, resetSeconds };
  }
}
