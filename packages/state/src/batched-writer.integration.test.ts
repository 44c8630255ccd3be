import { deleteKeys, eventually, type PrivateRedis, startPrivateRedis, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActiveSessions } from './active-sessions.js';
import { BatchedWriter, type OnWriteFailure } from './batched-writer.js';
import { ChannelStats } from './channel-stats.js';
import { stateKeys } from './keys.js';
import { createRedis, type RedisClient, redisReady } from './redis.js';
import { UsageLedger } from './usage-ledger.js';
import { utcDay } from './usage-periods.js';

const prefix = testPrefix();
let shared: RedisClient;
/** A redis-server of this file's own, taken down and brought back; `away` talks to it. */
let privateRedis: PrivateRedis;
let away: RedisClient;

beforeAll(async () => {
  shared = createRedis(testRedisUrl());
  await redisReady(shared, 2_000);
  privateRedis = await startPrivateRedis();
  away = createRedis(privateRedis.url);
  away.on('error', () => {}); // the outage is the point
  await redisReady(away, 2_000);
});

afterAll(async () => {
  shared?.disconnect();
  away?.disconnect();
  await privateRedis?.kill();
  await deleteKeys(prefix);
});

/** Counts summed per field, written as HINCRBYs of one hash in one MULTI. */
function counter(redis: RedisClient, key: string, onFailure: OnWriteFailure<Map<string, number>>) {
  const writer = new BatchedWriter<Map<string, number>>({
    open: () => new Map(),
    write: (counts) => {
      const multi = redis.multi();
      for (const [field, by] of counts) multi.hincrby(key, field, by);
      return multi.exec();
    },
    onFailure,
    flushMs: 60_000,
  });
  const add = (field: string, by = 1) => writer.batch.set(field, (writer.batch.get(field) ?? 0) + by);
  return { writer, add };
}

const addTo = {
  keep: (failed: Map<string, number>, gathering: Map<string, number>) => {
    for (const [field, by] of failed) gathering.set(field, (gathering.get(field) ?? 0) + by);
  },
};

async function redisGoesAway(): Promise<void> {
  await privateRedis.kill();
  await eventually(() => expect(away.status).not.toBe('ready'));
}

async function redisComesBack(): Promise<void> {
  await privateRedis.start();
  await eventually(() => expect(away.status).toBe('ready'));
}

describe('BatchedWriter on Redis', () => {
  it('writes what was gathered in one MULTI: all of it is in Redis once `written` settles', async () => {
    const key = `${prefix}:counts`;
    const { writer, add } = counter(shared, key, 'drop');
    add('a');
    add('b', 2);
    add('a', 3);
    const written = writer.written;
    writer.soon();
    await written;
    expect(await shared.hgetall(key)).toEqual({ a: '4', b: '2' });
  });

  it('while Redis is away, a kept batch is written with the next once it is back; a dropped one is lost', async () => {
    const kept = counter(away, `${prefix}:kept`, addTo);
    const dropped = counter(away, `${prefix}:dropped`, 'drop');
    kept.add('before');
    dropped.add('before');
    await redisGoesAway();
    await expect(kept.writer.flush()).rejects.toThrow();
    await expect(dropped.writer.flush()).rejects.toThrow();
    await redisComesBack();
    kept.add('after');
    dropped.add('after');
    await kept.writer.flush();
    await dropped.writer.flush();
    expect(await away.hgetall(`${prefix}:kept`)).toEqual({ before: '1', after: '1' });
    expect(await away.hgetall(`${prefix}:dropped`)).toEqual({ after: '1' });
  });
});

describe('the three writers, while Redis is away', () => {
  it('sessions and channel counts are kept and written once Redis is back; usage records are dropped and say so', async () => {
    const keys = stateKeys(`${prefix}-outage`);
    const sessions = new ActiveSessions(away, keys, 600, { flushMs: 60_000 });
    const stats = new ChannelStats(away, keys, { flushMs: 60_000 });
    const ledger = new UsageLedger(away, keys, { recordUsage: true, retentionDays: 1 });
    // A reservation makes the ledger write at the end of the turn, not a second later.
    const budgeted = {
      holds: [{ counter: keys.budget('key:a', 'tokens:day'), limit: 'tokensPerDay' as const, amount: 0, ttlMs: 60_000 }],
    };
    const usage = (key: string) => ({ key, model: 'm', hook: '-', promptTokens: 3, completionTokens: 2, cost: null });

    await redisGoesAway();
    // A failure record carries what is pending in its own MULTI: when that fails, the counts go with it.
    stats.recordInbound('sales');
    await expect(stats.recordFailure('sales', 'delivery: refused')).rejects.toThrow();
    sessions.touch('api:alice');
    stats.recordInbound('support');
    await expect(sessions.flush()).rejects.toThrow();
    await expect(stats.flush()).rejects.toThrow();
    await expect(ledger.record(usage('lost'), budgeted)).rejects.toThrow();

    await redisComesBack();
    sessions.touch('api:bob');
    stats.recordOutbound('support');
    await sessions.flush();
    await stats.flush();
    await ledger.record(usage('kept'), budgeted);

    expect(await sessions.count()).toBe(2);
    const [support, sales] = await stats.read([
      { name: 'support', type: 'generic' },
      { name: 'sales', type: 'generic' },
    ]);
    expect(support).toMatchObject({ messages_in: 1, messages_out: 1, connected: true });
    expect(sales).toMatchObject({ messages_in: 0, last_error: null });
    expect((await ledger.read([utcDay(new Date())])).map((row) => [row.key, row.requests])).toEqual([['kept', 1]]);
  });
});
