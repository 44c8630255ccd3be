import { setTimeout as sleep } from 'node:timers/promises';
import { conversationKey, type QueuedMessage } from '@switchboard/protocol';
import { eventually } from '@switchboard/testing';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { finalFields } from './exchange.js';
import type { HubOptions } from './hub.js';
import { chatMessage, createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function start(options: Partial<HubOptions> = {}): HubFixture {
  fixture = createHubFixture(options);
  return fixture;
}

const message = chatMessage;

interface Event {
  text: string;
  kind: 'start' | 'end';
}

/**
 * A processor as the worker's is, around `work`: take the turn, work, leave the line. It logs
 * when each message starts and ends, per conversation.
 */
function inTurn(fx: HubFixture, log: Map<string, Event[]>, work: (job: Job) => Promise<void> = async () => {}) {
  return async (job: Job, token?: string) => {
    const data = job.data as QueuedMessage;
    const conversation = conversationKey(data.hook, data.message.conversation);
    if (data.waits) await fx.hub.order.takeTurn(job, token, conversation, data.receivedAt);
    const events = log.get(data.message.conversation) ?? [];
    log.set(data.message.conversation, events);
    events.push({ text: data.message.text, kind: 'start' });
    await work(job);
    events.push({ text: data.message.text, kind: 'end' });
    await fx.hub.order.release(conversation, job.id!, finalFields(1));
  };
}

/** Each message ran alone in its conversation (its start follows the previous end), in this order. */
function expectOneAtATime(events: Event[] | undefined, texts: string[]) {
  expect(events?.map((e) => `${e.kind} ${e.text}`)).toEqual(texts.flatMap((text) => [`start ${text}`, `end ${text}`]));
}

describe('conversation ordering', () => {
  it.each([
    // A minute: every message behind another runs only because the one before woke it.
    ['woken by the message before', 60_000],
    // 5 ms: parked messages keep coming up before their turn and must park again.
    ['coming up early, again and again', 5],
  ])(
    'answers each conversation in arrival order, one message at a time, with conversations in parallel (%s)',
    async (_name, orderRecheckMs) => {
      const fx = start({ orderRecheckMs });
      const log = new Map<string, Event[]>();
      const work = () => sleep(Math.floor(Math.random() * 4));
      fx.startWorker(inTurn(fx, log, work), { concurrency: 4 });
      fx.startWorker(inTurn(fx, log, work), { concurrency: 4 });
      const conversations = ['alice', 'bob', 'carol', 'dave'];
      const texts = Array.from({ length: 15 }, (_, i) => `m${i}`);
      await Promise.all(
        conversations.map(async (who) => {
          for (const text of texts) await acceptMessage(fx.hub, 'support', message(who, text));
        }),
      );
      await eventually(() => expect([...log.values()].flat().filter((e) => e.kind === 'end')).toHaveLength(60), 400, 50);
      for (const who of conversations) expectOneAtATime(log.get(who), texts);
    },
  );

  it('keeps the next message waiting while a holder that crashed is run again, then runs it', async () => {
    // B's timer runs out many times while A is held: each time it must park again.
    const fx = start({ orderRecheckMs: 20 });
    const log = new Map<string, Event[]>();
    // The first worker takes A and never finishes it, as if it had died mid-answer.
    const crashing = fx.startWorker(
      inTurn(fx, log, () => new Promise<void>(() => {})),
      { concurrency: 1, lockMs: 500 },
    );
    await acceptMessage(fx.hub, 'support', message('erin', 'A'));
    await eventually(() => expect(log.get('erin')).toEqual([{ text: 'A', kind: 'start' }]));
    await acceptMessage(fx.hub, 'support', message('erin', 'B'));
    await crashing.close(true); // no more lock renewals: A stalls
    fx.startWorker(inTurn(fx, log), { concurrency: 2, lockMs: 500 });
    await eventually(() => expect(log.get('erin')?.at(-1)).toEqual({ text: 'B', kind: 'end' }), 400, 50);
    // A ran again from the start on the second worker, and B only after A was done.
    expect(log.get('erin')?.map((e) => `${e.kind} ${e.text}`)).toEqual(['start A', 'start A', 'end A', 'start B', 'end B']);
  });

  it('runs a message whose wake-up was missed once its parked timer runs out', async () => {
    const fx = start({ orderRecheckMs: 100 });
    const log = new Map<string, Event[]>();
    const conversation = conversationKey('support', 'frank');
    // A leaves the line without waking B, as a worker dying between the two would.
    fx.startWorker(async (job: Job, token?: string) => {
      const data = job.data as QueuedMessage;
      if (data.waits) await fx.hub.order.takeTurn(job, token, conversation, data.receivedAt);
      log.set('frank', [...(log.get('frank') ?? []), { text: data.message.text, kind: 'end' }]);
      await fx.hub.redis.lrem(fx.hub.keys.order(conversation), 1, job.id!);
    });
    await acceptMessage(fx.hub, 'support', message('frank', 'A'));
    await acceptMessage(fx.hub, 'support', message('frank', 'B'));
    await eventually(() => expect(log.get('frank')?.map((e) => e.text)).toEqual(['A', 'B']), 400, 25);
  });

  it('drops a line entry whose job never reached the queue, once a message behind it has waited long enough', async () => {
    const fx = start({ orderRecheckMs: 100, orphanAfterMs: 300 });
    const log = new Map<string, Event[]>();
    const conversation = conversationKey('support', 'grace');
    // Lined up, never added: the API died between the two steps.
    await fx.hub.order.enqueue(conversation, 'ghost', false);
    const { jobId } = await acceptMessage(fx.hub, 'support', message('grace', 'after the ghost'));
    fx.startWorker(inTurn(fx, log));
    await eventually(() => expectOneAtATime(log.get('grace'), ['after the ghost']), 400, 25);
    // The processor logs its end before it leaves the line and BullMQ completes the job.
    await eventually(async () => expect(await fx.hub.queue.getJobState(jobId)).toBe('completed'));
    expect(await fx.hub.redis.lrange(fx.hub.keys.order(conversation), 0, -1)).toEqual([]);
  });

  it('moves on past a message that finished without leaving the line', async () => {
    const fx = start({ orderRecheckMs: 100 });
    const log = new Map<string, Event[]>();
    const conversation = conversationKey('support', 'heidi');
    // A completes but its release is lost (Redis away at that moment, say).
    fx.startWorker(async (job: Job, token?: string) => {
      const data = job.data as QueuedMessage;
      if (data.waits) await fx.hub.order.takeTurn(job, token, conversation, data.receivedAt);
      log.set('heidi', [...(log.get('heidi') ?? []), { text: data.message.text, kind: 'end' }]);
    });
    await acceptMessage(fx.hub, 'support', message('heidi', 'A'));
    await acceptMessage(fx.hub, 'support', message('heidi', 'B'));
    await eventually(() => expect(log.get('heidi')?.map((e) => e.text)).toEqual(['A', 'B']), 400, 25);
  });

  it('takes a released message out of its line wherever it stands, keeping the others in order with a lifetime', async () => {
    const { hub } = start();
    const conversation = conversationKey('support', 'ivan');
    const line = hub.keys.order(conversation);
    const release = (jobId: string) => hub.order.release(conversation, jobId, finalFields(1), { deduped: false });
    for (const jobId of ['a', 'b', 'c', 'd']) await hub.order.enqueue(conversation, jobId, false);
    expect(await hub.redis.ttl(line)).toBeGreaterThan(0);
    // One behind another that is not first: the line keeps the rest in order.
    await release('c');
    expect(await hub.redis.lrange(line, 0, -1)).toEqual(['a', 'b', 'd']);
    // The first, with others behind.
    await release('a');
    expect(await hub.redis.lrange(line, 0, -1)).toEqual(['b', 'd']);
    expect(await hub.redis.ttl(line)).toBeGreaterThan(0);
    // The first of two: what is left still expires.
    await release('b');
    expect(await hub.redis.lrange(line, 0, -1)).toEqual(['d']);
    expect(await hub.redis.ttl(line)).toBeGreaterThan(0);
    // The last: the line is gone; a release repeated (or of a message no longer in line) changes nothing.
    await release('d');
    await release('d');
    expect(await hub.redis.exists(line)).toBe(0);
    // Not first of two: both stay, in order, with a lifetime.
    for (const jobId of ['e', 'f']) await hub.order.enqueue(conversation, jobId, false);
    await release('x');
    expect(await hub.redis.lrange(line, 0, -1)).toEqual(['e', 'f']);
    expect(await hub.redis.ttl(line)).toBeGreaterThan(0);
  });

  it('parks a message longer each time it comes up too early, up to 32 times the first wait', () => {
    const { hub } = start({ orderRecheckMs: 100 });
    expect([0, 1, 2, 5, 6, 50].map((parks) => hub.order.parkDelayMs(parks))).toEqual([100, 200, 400, 3200, 3200, 3200]);
  });
});
