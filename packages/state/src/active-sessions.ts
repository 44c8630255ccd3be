import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';

/**
 * Active sessions: one sorted-set member per user or conversation, scored by its last message
 * time. A member counts while seen within the window, so every process reading the set agrees.
 * Touches are gathered in the process and written once per `flushMs` (one round trip however many
 * messages came): the count lags by at most that, against a window of minutes.
 */
export class ActiveSessions {
  readonly #touched = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly windowSeconds: number,
    options: { flushMs?: number } = {},
  ) {
    this.#timer = setInterval(() => void this.flush().catch(() => {}), options.flushMs ?? 1_000);
    this.#timer.unref();
  }

  /** Marks `session` (e.g. `api:alice`, `hook:support:bob`) active now. */
  touch(session: string, now = Date.now()): void {
    this.#touched.set(session, now);
  }

  /** Writes the touches gathered since the last flush and drops members past the window. */
  async flush(now = Date.now()): Promise<void> {
    if (this.#touched.size === 0) return;
    const members = [...this.#touched].flatMap(([session, at]) => [at, session]);
    const touched = new Map(this.#touched);
    this.#touched.clear();
    try {
      await this.redis
        .multi()
        .zadd(this.keys.activeSessions, ...members)
        .zremrangebyscore(this.keys.activeSessions, '-inf', now - this.windowSeconds * 1000)
        .pexpire(this.keys.activeSessions, this.windowSeconds * 1000)
        .exec();
    } catch (err) {
      for (const [session, at] of touched) if (!this.#touched.has(session)) this.#touched.set(session, at);
      throw err;
    }
  }

  async count(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.activeSessions, now - this.windowSeconds * 1000, '+inf');
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush().catch(() => {});
  }
}
