import { conversationKey } from '@switchboard/protocol';
import { deleteKeys, eventually, testPrefix, testRedisUrl } from '@switchboard/testing';
import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { ShardedHub } from './hub.js';
import { readJobView } from './job-view.js';
import { INBOUND_QUEUE, totalQueueCounts } from './queues.js';
import { listJobs, retryJob } from './replay.js';
import { shardOf } from './shards.js';
import { chatMessage } from './test-support/hub-fixture.js';

/** A hub of four shards on one Redis (`<prefix>:0` … `<prefix>:3`): accept, job view, counts, listing and retry find each job's shard. */
const SHARDS = 4;
const prefix = testPrefix();
let redis: Redis;
let hubs: ShardedHub;

beforeAll(() => {
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  hubs = new ShardedHub(
    redis,
    { attempts: 1, backoffMs: 10, orderRecheckMs: 60_000, memory: { maxMessages: 6, ttlSeconds: 3600 } },
    Array.from({ length: SHARDS }, (_, n) => `${prefix}:${n}`),
  );
});

afterAll(async () => {
  await hubs.close();
  redis.disconnect();
  await deleteKeys(prefix);
});

describe('ShardedHub', () => {
  it("queues each message in its conversation's shard, under an id that names it, and finds it from the id", async () => {
    const accepted: { jobId: string; conversation: string }[] = [];
    for (let c = 0; c < 12; c++) {
      for (const text of ['one', 'two']) {
        const { jobId } = await acceptMessage(hubs, 'ops', chatMessage(`user-${c}`, text));
        accepted.push({ jobId, conversation: conversationKey('ops', `user-${c}`) });
      }
    }
    for (const { jobId, conversation } of accepted) {
      const shard = shardOf(conversation, SHARDS);
      expect(jobId).toMatch(new RegExp(`~${shard}$`));
      expect(await hubs.shards[shard]!.queue.getJob(jobId)).toBeDefined();
      expect(await readJobView(hubs, 'ops', jobId)).toEqual({ id: jobId, status: 'queued', attempts: 0 });
    }
    expect(new Set(accepted.map(({ jobId }) => jobId.split('~')[1])).size).toBeGreaterThan(1);
    // The first of each conversation waits, the second is parked behind it.
    expect(await totalQueueCounts(hubs.shards.map((hub) => hub.queue))).toMatchObject({ waiting: 12, delayed: 12 });
    expect(await listJobs(hubs, { state: 'waiting', limit: 100 })).toHaveLength(12);
    expect(await listJobs(hubs, { state: 'delayed', limit: 5 })).toHaveLength(5);
  });

  it('answers an id that names no shard of the deployment as not found', async () => {
    expect(await readJobView(hubs, 'ops', 'no-such-job')).toBeNull();
    expect(await readJobView(hubs, 'ops', 'no-such-job~9')).toBeNull();
    expect(await retryJob(hubs, 'no-such-job~2')).toBe('not_found');
  });

  it("retries a failed job in its own shard's queue", async () => {
    const { jobId } = await acceptMessage(hubs, 'ops', chatMessage('fails', 'boom'));
    const hub = hubs.forJob(jobId);
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const worker = new Worker(
      INBOUND_QUEUE,
      async (job) => {
        if (job.id === jobId) throw new UnrecoverableError('it failed');
        // Other jobs of this shard are left alone (parked again for a minute).
        await job.moveToDelayed(Date.now() + 60_000, job.token);
        throw new DelayedError();
      },
      { connection, prefix: hub.keys.bullPrefix },
    );
    try {
      await eventually(async () => expect(await readJobView(hubs, 'ops', jobId)).toMatchObject({ status: 'failed' }));
      expect((await listJobs(hubs, { state: 'failed' })).map((job) => job.id)).toEqual([jobId]);
      expect(await retryJob(hubs, jobId)).toBe('retried');
    } finally {
      await worker.close(true);
      connection.disconnect();
    }
  });
});
