import { setTimeout as sleep } from 'node:timers/promises';
import { deleteKeys, FakeRateLimit, testPrefix, testRedisUrl } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { stateKeys } from './keys.js';
import { SendBackoff, SendLimiter } from './send-limiter.js';

/** Several workers' limiters: each its own connection, all on one Redis and prefix. */
let prefix = testPrefix();
const connections: Redis[] = [];

function limiters(count: number, options = {}): SendLimiter[] {
  return Array.from({ length: count }, () => {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    connections.push(redis);
    return new SendLimiter(redis, stateKeys(prefix), options);
  });
}

afterEach(async () => {
  for (const redis of connections.splice(0)) redis.disconnect();
  await deleteKeys(prefix);
  prefix = testPrefix();
});

const RULES = [
  { count: 1, perMs: 40 },
  { count: 4, perMs: 400 },
];

describe('SendLimiter', () => {
  it('spaces a burst from several workers so a platform enforcing the rules never refuses one', async () => {
    const workers = limiters(3);
    const wentAt: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await workers[i % 3]!.take('tg:-100', RULES);
        wentAt.push(Date.now());
      }),
    );
    // The turns the workers were given (Redis's clock). All twelve were reserved at once, at the
    // start, so none is old enough to have been pruned. A platform that saw each send at its turn
    // refuses none. Checked on the turns rather than on when each send reached a fake, so a busy
    // machine that delays one send more than the next cannot make this fail (the headroom is there
    // for such delays in production, and is tens of ms here).
    const turns = (await connections[0]!.zrange(stateKeys(prefix).sendTurns('tg:-100'), 0, -1, 'WITHSCORES'))
      .filter((_, i) => i % 2 === 1)
      .map(Number);
    expect(turns).toHaveLength(12);
    const platform = new FakeRateLimit();
    for (const at of turns) platform.check('-100', RULES, at);
    expect(platform.refused).toBe(0);
    // And no worker went before its turn: the k-th send to go was no earlier than the k-th turn
    // (2 ms for the two clocks' rounding; a late send is always fine).
    wentAt.sort((a, b) => a - b);
    for (const [k, went] of wentAt.entries()) expect(went).toBeGreaterThanOrEqual(turns[k]! - 2);

    // The same burst without turns is refused: the check above is a real one.
    const unguarded = new FakeRateLimit();
    const now = Date.now();
    for (let i = 0; i < 12; i++) unguarded.check('-100', RULES, now);
    expect(unguarded.refused).toBeGreaterThan(0);
  });

  it('makes every worker wait out a pause another one recorded (a 429 retry_after)', async () => {
    const [first, second] = limiters(2);
    await first!.pause('tg:42', 300);
    const before = Date.now();
    await second!.take('tg:42', RULES);
    expect(Date.now() - before).toBeGreaterThanOrEqual(250);
  });

  it('fails at once, saying when to come back, when the turn is further away than it waits', async () => {
    const [worker] = limiters(1, { maxWaitMs: 100 });
    await worker!.pause('slack:C1', 5_000);
    const failure = await worker!.take('slack:C1', RULES).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SendBackoff);
    expect((failure as SendBackoff).retryAfterMs).toBeGreaterThan(4_000);
  });

  it('keeps targets apart: a paused chat does not hold up another', async () => {
    const [worker] = limiters(1, { maxWaitMs: 100 });
    await worker!.pause('tg:1', 5_000);
    await expect(worker!.take('tg:2', RULES)).resolves.toEqual(expect.any(String));
  });

  /** Redis's clock, ms: the one the turns are on. */
  async function redisNow(): Promise<number> {
    const [seconds, micros] = await connections[0]!.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }
  /** The time a turn holds in Redis, while its send may be on its way (`r:`) or once over (`s:`). */
  async function turnAt(target: string, member: string): Promise<number> {
    return Number(await connections[0]!.zscore(stateKeys(prefix).sendTurns(target), member));
  }
  const ONE = [{ count: 1, perMs: 100 }];

  it('gives no turn within a window of a send that may still be on its way, however late it is', async () => {
    const [slow, quick] = limiters(2);
    await slow!.take('tg:7', ONE);
    // The slow worker's event loop stalls: 300 ms after its turn its send has not gone, and may
    // reach the platform at any moment. The next turn is a window after now, not after that turn.
    await sleep(300);
    const takenAt = await redisNow();
    await quick!.take('tg:7', ONE);
    const [, latest] = await connections[0]!.zrange(stateKeys(prefix).sendTurns('tg:7'), -1, -1, 'WITHSCORES');
    expect(Number(latest)).toBeGreaterThanOrEqual(takenAt + 100);
  });

  it('counts a send that went late from when it was over', async () => {
    const [slow, quick] = limiters(2);
    const late = await slow!.take('tg:8', ONE);
    await sleep(300);
    await slow!.sent('tg:8', late!);
    const over = await turnAt('tg:8', `s:${late}`);
    expect(over).toBeGreaterThanOrEqual((await redisNow()) - 50);
    const next = await quick!.take('tg:8', ONE);
    // A platform that saw the late send arrive as late as it was over, and the next at its turn, refuses neither.
    const platform = new FakeRateLimit();
    for (const at of [over, await turnAt('tg:8', `r:${next}`)]) platform.check('8', ONE, at);
    expect(platform.refused).toBe(0);
  });
});
