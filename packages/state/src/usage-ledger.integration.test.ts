import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateKeys } from './keys.js';
import { createRedis, type RedisClient, redisReady } from './redis.js';
import { UsageLedger } from './usage-ledger.js';

const prefix = testPrefix();
const keys = stateKeys(prefix);
let redis: RedisClient;
let ledger: UsageLedger;

beforeAll(async () => {
  redis = createRedis(testRedisUrl());
  await redisReady(redis, 2_000);
  ledger = new UsageLedger(redis, keys, { recordUsage: true, retentionDays: 1 });
});

afterAll(async () => {
  redis?.disconnect();
  await deleteKeys(prefix);
});

const at = (iso: string) => new Date(iso);
const entry = (key: string, promptTokens: number, completionTokens: number, cost: number | null = 0) => ({
  key,
  model: 'm',
  hook: '-',
  promptTokens,
  completionTokens,
  cost,
});

describe('UsageLedger', () => {
  it('reserves until a counter reaches its limit, then names the limit, the spend and when it resets', async () => {
    const subject = [{ subject: 'key:a', limits: { tokensPerDay: 25 } }];
    const now = at('2026-03-31T23:00:00Z');
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await ledger.reserve(subject, { tokens: 10, cost: 0 }, now));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, false]);
    expect(results[3]).toEqual({
      ok: false,
      subject: 'key:a',
      limit: 'tokensPerDay',
      limitValue: 25,
      spent: 30,
      resetsAt: at('2026-04-01T00:00:00Z'),
    });
    // The next UTC day has a counter of its own.
    expect((await ledger.reserve(subject, { tokens: 10, cost: 0 }, at('2026-04-01T00:00:01Z'))).ok).toBe(true);
  });

  it('settles a reservation with the actual usage, and gives back one that was not used', async () => {
    const subject = [{ subject: 'hook:b', limits: { tokensPerDay: 100, costPerMonth: 1 } }];
    const now = at('2026-05-10T12:00:00Z');
    const first = await ledger.reserve(subject, { tokens: 60, cost: 0.5 }, now);
    const second = await ledger.reserve(subject, { tokens: 60, cost: 0.5 }, now);
    if (!first.ok || !second.ok) throw new Error('both fit: nothing was spent yet');
    await ledger.record(entry('-', 15, 5, 0.25), first.reservation, now); // 60 → 20 tokens, 0.5 → 0.25
    await ledger.release(second.reservation); // 60 and 0.5 given back
    expect(await redis.get(keys.budget('hook:b', 'tokens:2026-05-10'))).toBe('20');
    expect(Number(await redis.get(keys.budget('hook:b', 'cost:2026-05')))).toBeCloseTo(0.25, 12);
    const refused = await ledger.reserve([{ subject: 'hook:b', limits: { costPerMonth: 0.25 } }], { tokens: 0, cost: 0 }, now);
    expect(refused).toMatchObject({ ok: false, limit: 'costPerMonth', resetsAt: at('2026-06-01T00:00:00Z') });
  });

  it('sums usage over days, names with "|" in them intact, unpriced calls counted apart', async () => {
    await ledger.record(entry('team|x', 10, 2, 0.001), { holds: [] }, at('2026-07-01T10:00:00Z'));
    await ledger.record(entry('team|x', 20, 4, null), { holds: [] }, at('2026-07-02T10:00:00Z'));
    await ledger.record(entry('other', 1, 1, 0), { holds: [] }, at('2026-07-03T10:00:00Z'));
    const rows = await ledger.read(['2026-07-01', '2026-07-02']);
    expect(rows).toEqual([
      { key: 'team|x', model: 'm', hook: '-', requests: 2, promptTokens: 30, completionTokens: 6, cost: 0.001, unpriced: 1 },
    ]);
    expect(await redis.pttl(keys.usageDay('2026-07-01'))).toBeGreaterThan(86_000_000); // retentionDays: 1
  });

  it('records each key, hook and model under its own fields, past the bound of the names it keeps', async () => {
    const day = at('2026-07-05T10:00:00Z');
    const pairs = [
      { key: 'k', hook: 'h|1' },
      { key: 'k|h', hook: '1' },
    ];
    for (let i = 0; i < 1_100; i++) {
      const { key, hook } = pairs[i % 2]!;
      void ledger.record(
        { key, hook, model: `m${Math.floor(i / 2)}`, promptTokens: 1, completionTokens: 0, cost: 0 },
        { holds: [] },
        day,
      );
    }
    await ledger.record(
      { key: 'k', hook: 'h|1', model: 'm0', promptTokens: 1, completionTokens: 0, cost: 0 },
      { holds: [] },
      day,
    );
    const rows = await ledger.read(['2026-07-05']);
    expect(rows).toHaveLength(1_100);
    expect(rows.find((row) => row.key === 'k' && row.hook === 'h|1' && row.model === 'm0')).toMatchObject({
      requests: 2,
      promptTokens: 2,
    });
    expect(rows.find((row) => row.key === 'k|h' && row.hook === '1' && row.model === 'm0')).toMatchObject({ requests: 1 });
  });
});
