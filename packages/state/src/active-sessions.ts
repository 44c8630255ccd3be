import type { Redis } from 'ioredis';
import type { StateKeys } from './keys.js';

/**
 * Active sessions: one sorted-set member per user or conversation, scored by its last message
 * time. A member counts while seen within the window, so every process reading the set agrees.
 */
export class ActiveSessions {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly windowSeconds: number,
  ) {}

  /** Marks `session` (e.g. `api:alice`, `hook:support:bob`) active now. */
  async touch(session: string, now = Date.now()): Promise<void> {
    await this.redis
      .multi()
      .zadd(this.keys.activeSessions, now, session)
      .zremrangebyscore(this.keys.activeSessions, '-inf', now - this.windowSeconds * 1000)
      .pexpire(this.keys.activeSessions, this.windowSeconds * 1000)
      .exec();
  }

  async count(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.activeSessions, now - this.windowSeconds * 1000, '+inf');
  }
}
