import { conversationKey } from '@switchboard/protocol';
import { eventually } from '@switchboard/testing';
import { UnrecoverableError } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { JOB_FIELDS } from './keys.js';
import { listJobs, retryFailedJobs, retryJob } from './replay.js';
import { chatMessage, createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const message = chatMessage;

/** A hub whose worker fails every message for good, leaving its line as the real worker does. */
async function hubWithFailures(texts: [hook: string, text: string][]) {
  fixture = createHubFixture();
  const fx = fixture;
  const ids: string[] = [];
  for (const [hook, text] of texts) ids.push((await acceptMessage(fx.hub, hook, message(`c-${text}`, text))).jobId);
  const worker = fx.startWorker(async (job) => {
    const { hook, message: m } = job.data;
    await fx.hub.order.release(conversationKey(hook, m.conversation), job.id!, { [JOB_FIELDS.done]: 1 });
    throw new UnrecoverableError(`refused: ${m.text}`);
  });
  await eventually(async () => {
    const failed = await fx.hub.queue.getFailedCount();
    if (failed < ids.length) throw new Error(`${failed} failed so far`);
  }, 300);
  await worker.close();
  return { fx, ids };
}

describe('replay', () => {
  it('lists failed jobs of one hook with their error, newest first', async () => {
    const { fx, ids } = await hubWithFailures([
      ['a', 'one'],
      ['b', 'two'],
      ['a', 'three'],
    ]);
    const listed = await listJobs(fx.hub, { state: 'failed', hook: 'a' });
    expect(listed.map((job) => job.id).sort()).toEqual([ids[0], ids[2]].sort());
    expect(listed.find((job) => job.id === ids[0])).toMatchObject({
      hook: 'a',
      text: 'one',
      error: 'refused: one',
      answered: false,
    });
    expect(await listJobs(fx.hub, { state: 'failed', hook: 'a', limit: 1 })).toHaveLength(1);
    expect(await listJobs(fx.hub, { state: 'completed' })).toEqual([]);
  });

  it('retries a failed job once: marked, back in the queue, its conversation line rejoined once when it runs', async () => {
    const { fx, ids } = await hubWithFailures([['a', 'one']]);
    const id = ids[0]!;
    expect(await retryJob(fx.hub, 'missing')).toBe('not_found');
    expect(await retryJob(fx.hub, id)).toBe('retried');
    expect(await retryJob(fx.hub, id)).toBe('not_failed'); // already back in the queue
    expect(await fx.hub.redis.hget(fx.hub.queue.toKey(id), JOB_FIELDS.rejoin)).toBe('1');
    expect(await fx.hub.queue.getJobState(id)).toBe('waiting');

    const line = conversationKey('a', 'c-one');
    await fx.hub.feeds.append(id, 'error', { message: 'The message could not be answered.' });
    expect(await fx.hub.order.rejoin(line, id)).toBe(true);
    expect(await fx.hub.redis.exists(fx.hub.keys.feed(id))).toBe(0); // a reader follows the new run, not the old error
    expect(await fx.hub.order.rejoin(line, id)).toBe(false); // the mark is spent: nothing changes
    expect(await fx.hub.redis.lrange(fx.hub.keys.order(line), 0, -1)).toEqual([id]);
    const [done, mark] = await fx.hub.redis.hmget(fx.hub.queue.toKey(id), JOB_FIELDS.done, JOB_FIELDS.rejoin);
    expect([done, mark]).toEqual([null, null]);
  });

  it('never marks a job that has not failed', async () => {
    fixture = createHubFixture();
    const { jobId } = await acceptMessage(fixture.hub, 'a', message('c', 'queued'));
    expect(await retryJob(fixture.hub, jobId)).toBe('not_failed');
    expect(await fixture.hub.redis.hget(fixture.hub.queue.toKey(jobId), JOB_FIELDS.rejoin)).toBeNull();
  });

  it('retries a hook’s failed jobs in bulk, leaving other hooks’ alone', async () => {
    const { fx, ids } = await hubWithFailures([
      ['a', 'one'],
      ['b', 'two'],
      ['a', 'three'],
    ]);
    const { retried } = await retryFailedJobs(fx.hub, 'a');
    expect(retried.sort()).toEqual([ids[0], ids[2]].sort());
    expect(await fx.hub.queue.getJobState(ids[1]!)).toBe('failed');
  });
});
