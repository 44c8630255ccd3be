import { conversationKey, type InboundMessage, readQueuedMessage } from '@switchboard/protocol';
import { eventually } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { JOB_FIELDS } from './keys.js';
import { createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const message = (text: string, dedupeKey: string | null = null): InboundMessage => ({
  action: 'chat',
  text,
  from: 'judy',
  conversation: 'C1:judy',
  dedupeKey,
  replyTo: { channel: 'C1' },
});

describe('acceptMessage', () => {
  it('queues a version-3 message, first in line, with the retry policy', async () => {
    fixture = createHubFixture({ attempts: 5, backoffMs: 40 });
    const { jobId, duplicate } = await acceptMessage(fixture.hub, 'team', message('hi'), 1_760_000_000_000);
    expect(duplicate).toBe(false);
    const job = await fixture.hub.queue.getJob(jobId);
    expect(job?.data).toEqual({ v: 4, hook: 'team', message: message('hi'), receivedAt: 1_760_000_000_000, waits: false });
    expect(job?.opts).toMatchObject({ attempts: 5, backoff: { type: 'switchboard', delay: 40 } });
    expect(await job?.getState()).toBe('waiting');
  });

  it('queues a message behind an unfinished one of its conversation parked, and others not', async () => {
    fixture = createHubFixture();
    await acceptMessage(fixture.hub, 'team', message('first'));
    const behind = await acceptMessage(fixture.hub, 'team', message('second'));
    const elsewhere = await acceptMessage(fixture.hub, 'team', { ...message('other'), conversation: 'C2:judy' });
    const parked = await fixture.hub.queue.getJob(behind.jobId);
    expect(readQueuedMessage(parked?.data)?.message.waits).toBe(true);
    expect(await parked?.getState()).toBe('delayed');
    expect(await fixture.hub.queue.getJobState(elsewhere.jobId)).toBe('waiting');
    expect(await fixture.hub.redis.lrange(fixture.hub.keys.order(conversationKey('team', 'C1:judy')), 0, -1)).toHaveLength(2);
  });

  it('wakes a parked message whose one ahead finished between its lining up and its add', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    const first = await acceptMessage(hub, 'team', message('first'));
    // Sends its line-up now; the release below follows it on the same connection, before the add.
    const accepting = acceptMessage(hub, 'team', message('second'));
    await hub.order.release(conversationKey('team', 'C1:judy'), first.jobId, { [JOB_FIELDS.done]: 1 }, { deduped: false });
    const second = await accepting;
    expect(readQueuedMessage((await hub.queue.getJob(second.jobId))?.data)?.message.waits).toBe(true);
    expect(await hub.queue.getJobState(second.jobId)).toBe('waiting');
  });

  it('answers a repeated platform delivery with the first job and queues nothing', async () => {
    fixture = createHubFixture();
    const first = await acceptMessage(fixture.hub, 'team', message('hi', 'C1:1736942400.000100'));
    const again = await acceptMessage(fixture.hub, 'team', message('hi', 'C1:1736942400.000100'));
    expect(again).toEqual({ jobId: first.jobId, duplicate: true, replicated: true });
    expect(await fixture.hub.queue.getJobCounts('waiting', 'delayed')).toMatchObject({ waiting: 1, delayed: 0 });
  });

  it('queues a repeated delivery whose first job never reached the queue, in the place it already had', async () => {
    fixture = createHubFixture();
    const first = await acceptMessage(fixture.hub, 'team', message('hi', 'event-1'));
    // The API died after the claim, before BullMQ wrote the job.
    await (await fixture.hub.queue.getJob(first.jobId))?.remove();
    const again = await acceptMessage(fixture.hub, 'team', message('hi', 'event-1'));
    expect(again).toEqual({ jobId: first.jobId, duplicate: false, replicated: true });
    expect(await fixture.hub.queue.getJobState(first.jobId)).toBe('waiting');
    expect(await fixture.hub.redis.lrange(fixture.hub.keys.order(conversationKey('team', 'C1:judy')), 0, -1)).toEqual([
      first.jobId,
    ]);
  });

  it('keeps at most keepJobs finished jobs, and still knows a late repeat of a removed one as a duplicate', async () => {
    fixture = createHubFixture({ keepJobs: 3 });
    const { hub } = fixture;
    const conversation = conversationKey('team', 'C1:judy');
    fixture.startWorker(async (job) => {
      await hub.order.release(conversation, job.id!, { sbDone: 1 });
      return { reply: 'ok', model: 'm', parts: 1 };
    });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await acceptMessage(hub, 'team', message(`m${i}`, `event-${i}`))).jobId);
      await eventually(async () => expect(await hub.queue.getJobState(ids[i]!)).toBe('completed'));
    }
    // Trimmed as the worker completes them (job-retention.ts), just after each completion.
    await eventually(async () => expect(await hub.queue.getJobCounts('completed')).toEqual({ completed: 3 }));
    expect(await hub.queue.getJob(ids[0]!)).toBeUndefined();

    const again = await acceptMessage(hub, 'team', message('m0', 'event-0'));
    expect(again).toEqual({ jobId: ids[0], duplicate: true, replicated: true });
    expect(await hub.queue.getJob(ids[0]!)).toBeUndefined();
    expect(await hub.redis.lrange(hub.keys.order(conversation), 0, -1)).toEqual([]);
  });
});
