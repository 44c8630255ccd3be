import { type PrivateRedis, startPrivateRedis } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { Hub } from './hub.js';
import { chatMessage } from './test-support/hub-fixture.js';

/** `replicaAcks`: an accepted message is on that many replicas, else says it is not (a private primary and replica). */
let primary: PrivateRedis;
let replica: PrivateRedis;
let redis: Redis;
let replicaClient: Redis;

beforeAll(async () => {
  [primary, replica] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
  redis = new Redis(primary.url, { maxRetriesPerRequest: null });
  replicaClient = new Redis(replica.url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  redis?.disconnect();
  replicaClient?.disconnect();
  await Promise.all([primary?.kill(), replica?.kill()]);
});

const hub = (replicaAcks: number) =>
  new Hub(redis, {
    prefix: `replicas-${replicaAcks}`,
    attempts: 1,
    backoffMs: 10,
    orderRecheckMs: 60_000,
    memory: { maxMessages: 6, ttlSeconds: 3600 },
    replicaAcks,
  });

/** The primary's WAIT commands so far (INFO commandstats). */
async function waitCalls(): Promise<number> {
  return Number(/cmdstat_wait:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
}

describe('replicaAcks', () => {
  it('says a message is not confirmed when no replica answers, and queues it all the same', async () => {
    const one = hub(1);
    const accepted = await acceptMessage(one, 'ops', chatMessage('kim', 'hi'));
    expect(accepted).toMatchObject({ duplicate: false, replicated: false });
    expect(await one.queue.getJobState(accepted.jobId)).toBe('waiting');
    await one.close();
  });

  it('sends no WAIT while no replica is connected: accepts at once are not confirmed, and not held a second each', async () => {
    const one = hub(1);
    const before = await waitCalls();
    const accepted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => acceptMessage(one, 'ops', chatMessage(`many-${i}`, 'hi'))),
    );
    expect(accepted.map((a) => a.replicated)).toEqual(Array(20).fill(false));
    for (const a of accepted) expect(await one.queue.getJobState(a.jobId)).toBe('waiting');
    // A WAIT holds its connection until it times out: one each held every command a second each.
    expect((await waitCalls()) - before).toBe(0);
    await one.close();
  });

  it('resolves once the replica has the job', async () => {
    await replicaClient.call('REPLICAOF', '127.0.0.1', String(primary.port));
    for (let i = 0; i < 200 && !(await replicaClient.info('replication')).includes('master_link_status:up'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const one = hub(1);
    const accepted = await acceptMessage(one, 'ops', chatMessage('lee', 'hi'));
    expect(accepted).toMatchObject({ duplicate: false, replicated: true });
    expect(await replicaClient.hget(one.queue.toKey(accepted.jobId), 'name')).toBe('message');
    // Accepts at once, sharing WAITs: each is confirmed, and each is on the replica.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) => acceptMessage(one, 'ops', chatMessage(`lee-${i}`, 'hi'))),
    );
    expect(many.map((a) => a.replicated)).toEqual(Array(20).fill(true));
    for (const a of many) expect(await replicaClient.hget(one.queue.toKey(a.jobId), 'name')).toBe('message');
    await one.close();
  });
});
