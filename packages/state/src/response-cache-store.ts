import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { withTimeout } from './redis.js';

/**
 * Cached answers: one string key per entry (SET with an expiry, GET), so every API process
 * shares them and Redis drops them on time. A lookup never holds a request for long: past
 * `timeoutMs`, or with Redis away, it fails and the caller treats it as a miss.
 */
export class ResponseCacheStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly timeoutMs = 250,
  ) {}

  get(hash: string): Promise<string | null> {
    return withTimeout(this.redis.get(this.keys.cacheEntry(hash)), this.timeoutMs);
  }

  async set(hash: string, value: string, ttlSeconds: number): Promise<void> {
    await withTimeout(this.redis.set(this.keys.cacheEntry(hash), value, 'EX', ttlSeconds), 1_000);
  }
}
