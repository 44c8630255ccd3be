import { eventually } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { trimEvery } from './job-retention.js';
import { createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Queues `count` jobs with the shard's retention options and waits until the worker completed them all. */
async function completeJobs(f: HubFixture, count: number, from = 0): Promise<void> {
  const { hub } = f;
  for (let i = from; i < from + count; i++)
    await hub.queue.add('message', { i }, { jobId: `j${i}`, ...hub.retention.jobOptions() });
  await eventually(async () => expect(await hub.queue.getJobState(`j${from + count - 1}`)).toBe('completed'));
}

describe('JobRetention', () => {
  it('trims completed jobs to keepJobs as a worker completes them, the oldest first, with their keys', async () => {
    fixture = createHubFixture({ keepJobs: 4 });
    const { hub } = fixture;
    fixture.startWorker(async () => 'ok', { concurrency: 1 });
    await completeJobs(fixture, 10);
    await eventually(async () => expect(await hub.queue.getJobCounts('completed')).toEqual({ completed: 4 }));
    const kept = (await hub.queue.getCompleted()).map((job) => job.id).sort();
    expect(kept).toEqual(['j6', 'j7', 'j8', 'j9']);
    expect(await hub.redis.exists(hub.queue.toKey('j0'), hub.queue.toKey('j5'))).toBe(0);
  });

  it('removes completed jobs older than the age bound, however few', async () => {
    fixture = createHubFixture({ keepJobs: 100, retentionSeconds: 60 });
    const { hub } = fixture;
    fixture.startWorker(async () => 'ok', { concurrency: 1 });
    await completeJobs(fixture, 3);
    expect(await hub.retention.trim()).toBe(0);
    expect(await hub.retention.trim(Date.now() + 61_000)).toBe(3);
    expect(await hub.queue.getJobCounts('completed')).toEqual({ completed: 0 });
    expect(await hub.queue.getJob('j1')).toBeUndefined();
  });

  it('trims a large excess in several bounded steps', async () => {
    fixture = createHubFixture({ keepJobs: 10 });
    const { hub } = fixture;
    // 1,205 recently completed jobs, as a lowered keepJobs finds them: one trim call removes at most 1,000.
    const completed = hub.queue.toKey('completed');
    const now = Date.now();
    for (let i = 0; i < 1205; i++) await hub.redis.zadd(completed, now - 1205 + i, `old${i}`);
    await hub.redis.hset(hub.queue.toKey('old0'), 'name', 'message');
    expect(await hub.retention.trim()).toBe(1195);
    expect(await hub.redis.zcard(completed)).toBe(10);
    expect(await hub.redis.zrange(completed, 0, 0)).toEqual(['old1195']);
    expect(await hub.redis.exists(hub.queue.toKey('old0'))).toBe(0);
  });

  it('trims every 1 % of keepJobs completions, at least every one and at most every 100', () => {
    expect(trimEvery(10)).toBe(1);
    expect(trimEvery(250)).toBe(2);
    expect(trimEvery(10_000)).toBe(100);
    expect(trimEvery(1_000_000)).toBe(100);
  });
});
