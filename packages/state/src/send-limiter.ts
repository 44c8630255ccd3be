import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient } from './redis.js';

/**
 * Turns for sending to a platform target (a chat, a channel), shared by every worker through
 * Redis. Each target is one sorted set of reserved send times (Redis's own clock, so workers on
 * other machines agree); one script reserves the earliest time that keeps every rule, and the
 * caller sleeps until then. A platform's "wait" (429 retry_after) is a member of the same set
 * that no reservation may come before. One key per script, so it runs on Redis Cluster as is.
 */

/**
 * KEYS[1] the target's turns (sorted set: member = a reservation, score = its send time in ms;
 *         the member '~pause' = when the platform lets us send again)
 * ARGV[1] a unique member for this reservation
 * ARGV[2] the longest wait worth reserving, ms: beyond it nothing is reserved and -wait returned
 * ARGV[3..] rules: count, window ms (already padded with the headroom)
 *
 * Returns the wait in ms before the reserved send, or minus the wait when it was too long.
 * Reservations only ever go after the latest one, so a rule holds when the send `count` places
 * back is at least a window earlier.
 */
const TAKE = `
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local at = now
local paused = tonumber(redis.call('ZSCORE', key, '~pause') or '0')
if paused > at then at = paused end
local most, longest = 0, 0
for i = 3, #ARGV, 2 do
  most = math.max(most, tonumber(ARGV[i]))
  longest = math.max(longest, tonumber(ARGV[i + 1]))
end
local recent = redis.call('ZREVRANGE', key, 0, most, 'WITHSCORES')
local times = {}
for i = 1, #recent, 2 do
  if recent[i] ~= '~pause' then times[#times + 1] = tonumber(recent[i + 1]) end
end
if times[1] and times[1] > at then at = times[1] end
for i = 3, #ARGV, 2 do
  local before = times[tonumber(ARGV[i])]
  if before and before + tonumber(ARGV[i + 1]) > at then at = before + tonumber(ARGV[i + 1]) end
end
local wait = at - now
if wait > tonumber(ARGV[2]) then return -wait end
redis.call('ZADD', key, at, ARGV[1])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - longest)
redis.call('PEXPIRE', key, wait + longest + 1000)
return wait
`;

/**
 * KEYS[1] the target's turns; ARGV[1] ms the platform asked to wait.
 * Moves the pause mark later (never earlier). Returns nothing.
 */
const PAUSE = `
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('ZSCORE', key, '~pause') or '0') then redis.call('ZADD', key, untilMs, '~pause') end
if redis.call('PTTL', key) < tonumber(ARGV[1]) + 1000 then redis.call('PEXPIRE', key, tonumber(ARGV[1]) + 1000) end
return 0
`;

/** KEYS[1] the target's turns. Returns the ms the platform still asks to wait (0 when none). */
const PAUSED = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return math.max(0, tonumber(redis.call('ZSCORE', KEYS[1], '~pause') or '0') - now)
`;

type LimiterRedis = RedisClient & {
  sbSendTake(key: string, ...args: (string | number)[]): Promise<number>;
  sbSendPause(key: string, ms: number): Promise<number>;
  sbSendPaused(key: string): Promise<number>;
};

export interface SendLimiterOptions {
  /**
   * Windows are stretched by this share, so a send that took a little longer on the way still
   * lands inside the platform's limit. @defaultValue 0.1
   */
  headroom?: number;
  /** ...and by at least this many ms. @defaultValue 20 */
  minHeadroomMs?: number;
  /**
   * A turn further away than this is not waited for: the send fails as retryable with that delay,
   * and the job comes back then. @defaultValue 120000
   */
  maxWaitMs?: number;
}

/** The platform target will not take a send for a while; the job is retried after `retryAfterMs`. */
export class SendBackoff extends Error {
  override name = 'SendBackoff';
  readonly retryable = true;
  constructor(readonly retryAfterMs: number) {
    super(`the platform target is busy for ${retryAfterMs} ms more`);
  }
}

export class SendLimiter {
  readonly #redis: LimiterRedis;
  readonly #headroom: number;
  readonly #minHeadroomMs: number;
  readonly #maxWaitMs: number;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    options: SendLimiterOptions = {},
  ) {
    defineCommands(redis, {
      sbSendTake: { numberOfKeys: 1, lua: TAKE },
      sbSendPause: { numberOfKeys: 1, lua: PAUSE },
      sbSendPaused: { numberOfKeys: 1, lua: PAUSED },
    });
    this.#redis = redis as LimiterRedis;
    this.#headroom = options.headroom ?? 0.1;
    this.#minHeadroomMs = options.minHeadroomMs ?? 20;
    this.#maxWaitMs = options.maxWaitMs ?? 120_000;
  }

  /**
   * Resolves when the caller may send to `target`; throws `SendBackoff` when its turn is more
   * than `maxWaitMs` away, and the signal's reason when it fires while waiting.
   */
  async take(target: string, rules: readonly { count: number; perMs: number }[], signal?: AbortSignal): Promise<void> {
    if (rules.length === 0) return;
    const key = this.keys.sendTurns(target);
    const padded = rules.flatMap((rule) => [
      rule.count,
      rule.perMs + Math.max(Math.ceil(rule.perMs * this.#headroom), this.#minHeadroomMs),
    ]);
    const wait = await this.#redis.sbSendTake(key, randomUUID(), this.#maxWaitMs, ...padded);
    if (wait < 0) throw new SendBackoff(-wait);
    if (wait === 0) return;
    await sleep(wait, undefined, signal ? { signal } : undefined);
    // A platform's "wait" that came in while this caller slept holds for it too.
    const paused = await this.#redis.sbSendPaused(key);
    if (paused > 0) await sleep(paused, undefined, signal ? { signal } : undefined);
  }

  /** Nothing goes to `target` for `ms` (a platform's 429 retry_after), whichever worker sends. */
  async pause(target: string, ms: number): Promise<void> {
    if (ms > 0) await this.#redis.sbSendPause(this.keys.sendTurns(target), Math.ceil(ms));
  }
}
