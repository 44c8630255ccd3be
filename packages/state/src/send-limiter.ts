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
 *
 * The platform counts a send when it arrives, which a busy machine can make later than its turn
 * (a stalled event loop, a slow connection). So a turn counts as going now until its sender says
 * the send is over (`sent`, answered or failed: it has arrived by then, or never will), and from
 * then on at that moment. A late send thus pushes the next turns back, and a turn never comes
 * a window after a send that may still be on its way.
 */

/**
 * KEYS[1] the target's turns (sorted set: member = a turn, `r:<id>` while its send may be on its
 *         way, `s:<id>` once it is over; score = its send time in ms: the turn's, then when it
 *         was over if that was later; the member '~pause' = when the platform lets us send again)
 * ARGV[1] a unique id for this turn
 * ARGV[2] the longest wait worth reserving, ms: beyond it nothing is reserved and -wait returned
 * ARGV[3] how long after its turn a send not over may still be on its way, ms (older: its worker died)
 * ARGV[4..] rules: count, window ms (already padded with the headroom)
 *
 * Returns the wait in ms before the reserved send, or minus the wait when it was too long.
 * A turn already due whose send is not over counts as going now. Reservations only ever go after
 * the latest one, so a rule holds when the send `count` places back is at least a window earlier.
 */
const TAKE = `
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local at = now
local paused = tonumber(redis.call('ZSCORE', key, '~pause') or '0')
if paused > at then at = paused end
local longest = 0
for i = 5, #ARGV, 2 do longest = math.max(longest, tonumber(ARGV[i])) end
local inFlight = tonumber(ARGV[3])
local span = math.max(longest, inFlight)
local recent = redis.call('ZRANGEBYSCORE', key, now - span, '+inf', 'WITHSCORES')
local times = {}
for i = 1, #recent, 2 do
  if recent[i] ~= '~pause' then
    local t = tonumber(recent[i + 1])
    if t < now and t > now - inFlight and string.sub(recent[i], 1, 2) == 'r:' then t = now end
    times[#times + 1] = t
  end
end
table.sort(times, function(a, b) return a > b end)
if times[1] and times[1] > at then at = times[1] end
for i = 4, #ARGV, 2 do
  local before = times[tonumber(ARGV[i])]
  if before and before + tonumber(ARGV[i + 1]) > at then at = before + tonumber(ARGV[i + 1]) end
end
local wait = at - now
if wait > tonumber(ARGV[2]) then return -wait end
redis.call('ZADD', key, at, 'r:' .. ARGV[1])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
redis.call('PEXPIRE', key, wait + span + 1000)
return wait
`;

/**
 * KEYS[1] the target's turns; ARGV[1] the turn's id.
 * The turn's send is over: it counts from now if that is later than its turn, and no longer as
 * going now. The key lives on by as much as the send was late. Returns nothing.
 */
const SENT = `
local key = KEYS[1]
local member = 'r:' .. ARGV[1]
local score = redis.call('ZSCORE', key, member)
if not score then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local late = now - tonumber(score)
redis.call('ZREM', key, member)
redis.call('ZADD', key, math.max(now, tonumber(score)), 's:' .. ARGV[1])
local ttl = redis.call('PTTL', key)
if late > 0 and ttl > 0 then redis.call('PEXPIRE', key, ttl + late) end
return 0
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
  sbSendSent(key: string, turn: string): Promise<number>;
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
  /**
   * How long after its turn a send that was never reported over still counts as on its way; later
   * it is taken for the send of a worker that died. Longer than a platform call's time-out.
   * @defaultValue 30000
   */
  inFlightMs?: number;
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
  readonly #inFlightMs: number;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    options: SendLimiterOptions = {},
  ) {
    defineCommands(redis, {
      sbSendTake: { numberOfKeys: 1, lua: TAKE },
      sbSendPause: { numberOfKeys: 1, lua: PAUSE },
      sbSendPaused: { numberOfKeys: 1, lua: PAUSED },
      sbSendSent: { numberOfKeys: 1, lua: SENT },
    });
    this.#redis = redis as LimiterRedis;
    this.#headroom = options.headroom ?? 0.1;
    this.#minHeadroomMs = options.minHeadroomMs ?? 20;
    this.#maxWaitMs = options.maxWaitMs ?? 120_000;
    this.#inFlightMs = options.inFlightMs ?? 30_000;
  }

  /**
   * Resolves when the caller may send to `target`, with the turn's id for `sent`; throws
   * `SendBackoff` when its turn is more than `maxWaitMs` away, and the signal's reason when it
   * fires while waiting. Undefined without rules (nothing reserved).
   */
  async take(
    target: string,
    rules: readonly { count: number; perMs: number }[],
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    if (rules.length === 0) return undefined;
    const key = this.keys.sendTurns(target);
    const padded = rules.flatMap((rule) => [
      rule.count,
      rule.perMs + Math.max(Math.ceil(rule.perMs * this.#headroom), this.#minHeadroomMs),
    ]);
    const turn = randomUUID();
    const wait = await this.#redis.sbSendTake(key, turn, this.#maxWaitMs, this.#inFlightMs, ...padded);
    if (wait < 0) throw new SendBackoff(-wait);
    if (wait === 0) return turn;
    await sleep(wait, undefined, signal ? { signal } : undefined);
    // A platform's "wait" that came in while this caller slept holds for it too.
    const paused = await this.#redis.sbSendPaused(key);
    if (paused > 0) await sleep(paused, undefined, signal ? { signal } : undefined);
    return turn;
  }

  /**
   * The send of `turn` is over (answered, refused or failed): the next turns count from now, not
   * from when it was due. Until then it counts as going at every moment after its turn.
   */
  async sent(target: string, turn: string): Promise<void> {
    await this.#redis.sbSendSent(this.keys.sendTurns(target), turn);
  }

  /** Nothing goes to `target` for `ms` (a platform's 429 retry_after), whichever worker sends. */
  async pause(target: string, ms: number): Promise<void> {
    if (ms > 0) await this.#redis.sbSendPause(this.keys.sendTurns(target), Math.ceil(ms));
  }
}
