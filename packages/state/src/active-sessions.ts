import { BatchedWriter } from './batched-writer.js';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';

/**
 * Active sessions: one sorted-set member per user or conversation, scored by its last message
 * time. A member counts while seen within the window, so every process reading the set agrees.
 * Touches are gathered in the process and written at most `flushMs` after the first (one round
 * trip however many messages came): the count lags by at most that, against a window of minutes.
 * Touches whose write failed are kept and written with the next ones (a later touch wins).
 */
export class ActiveSessions {
  /** Session → when it was last touched, until written. */
  readonly #writer: BatchedWriter<Map<string, number>>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly windowSeconds: number,
    options: { flushMs?: number } = {},
  ) {
    this.#writer = new BatchedWriter<Map<string, number>>({
      open: () => new Map(),
      write: (touched) => this.#write(touched),
      onFailure: {
        keep(failed, gathering) {
          for (const [session, at] of failed) if (!gathering.has(session)) gathering.set(session, at);
        },
      },
      flushMs: options.flushMs,
    });
  }

  /** Marks `session` (e.g. `api:alice`, `hook:support:bob`) active now. */
  touch(session: string, now = Date.now()): void {
    this.#writer.batch.set(session, now);
  }

  /** Writes the touches gathered since the last flush and drops members past the window. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  async count(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.activeSessions, now - this.windowSeconds * 1000, '+inf');
  }

  /** Writes what is pending (bounded: Redis may be away). */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }

  #write(touched: Map<string, number>): Promise<unknown> {
    const now = Date.now();
    const members = [...touched].flatMap(([session, at]) => [at, session]);
    return this.redis
      .multi()
      .zadd(this.keys.activeSessions, ...members)
      .zremrangebyscore(this.keys.activeSessions, '-inf', now - this.windowSeconds * 1000)
      .pexpire(this.keys.activeSessions, this.windowSeconds * 1000)
      .exec();
  }
}
