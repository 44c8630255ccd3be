import type { InboundMessage } from '@switchboard/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { JOB_FIELDS } from './keys.js';
import { createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const CONVERSATION = 'support:ivan';
const message: InboundMessage = {
  action: 'chat',
  text: 'hello?',
  from: 'ivan',
  conversation: 'ivan',
  dedupeKey: null,
  replyTo: {},
};
const reply = (text: string) => ({ text, model: 'mock/gpt', created: 1_760_000_000 });

/** A hub with memory of 6 messages, and one queued job to record replies on. */
async function withJob() {
  fixture = createHubFixture({ memory: { maxMessages: 6, ttlSeconds: 3600 } });
  const { jobId } = await acceptMessage(fixture.hub, 'support', message);
  return { hub: fixture.hub, jobId };
}

describe('the exchange record', () => {
  it('records the first reply and stores the exchange in memory once, however often the job records', async () => {
    const { hub, jobId } = await withJob();
    expect(await hub.exchange.record(jobId, CONVERSATION, 'hello?', reply('first'))).toEqual(reply('first'));
    // A second run (a retry, or a worker that took over) got another answer: the first one stands.
    expect(await hub.exchange.record(jobId, CONVERSATION, 'hello?', reply('second'))).toEqual(reply('first'));
    expect(await hub.exchange.history(CONVERSATION)).toEqual([
      { role: 'user', content: 'hello?' },
      { role: 'assistant', content: 'first' },
    ]);
    expect(await hub.exchange.state(jobId)).toEqual({
      reply: reply('first'),
      delivered: 0,
      done: false,
      live: null,
      retried: false,
    });
  });

  it('keeps a context message in memory once, unanswered, however often its job runs', async () => {
    const { hub, jobId } = await withJob();
    await hub.exchange.remember(jobId, CONVERSATION, 'Ann: the deploy is at five');
    await hub.exchange.remember(jobId, CONVERSATION, 'Ann: the deploy is at five');
    expect(await hub.exchange.history(CONVERSATION)).toEqual([{ role: 'user', content: 'Ann: the deploy is at five' }]);
  });

  it('records a fixed reply without touching memory, and a second run delivers the same text', async () => {
    const { hub, jobId } = await withJob();
    const fixed = { text: 'Your code: ABCD2345', model: 'switchboard', created: 1 };
    expect(await hub.exchange.record(jobId, CONVERSATION, 'hi', fixed, { remember: false })).toEqual(fixed);
    expect(await hub.exchange.record(jobId, CONVERSATION, 'hi', { ...fixed, text: 'another' }, { remember: false })).toEqual(
      fixed,
    );
    expect(await hub.exchange.history(CONVERSATION)).toEqual([]);
  });

  it('lets one of two racing runs win, and the memory holds one exchange', async () => {
    const { hub, jobId } = await withJob();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => hub.exchange.record(jobId, CONVERSATION, 'hello?', reply(`answer ${i}`))),
    );
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await hub.exchange.history(CONVERSATION)).toEqual([
      { role: 'user', content: 'hello?' },
      { role: 'assistant', content: results[0]!.text },
    ]);
  });

  it('keeps the last messages up to the limit, skips unreadable entries, and forgets on reset', async () => {
    const { hub } = await withJob();
    for (let i = 0; i < 5; i++) {
      const { jobId } = await acceptMessage(hub, 'support', { ...message, text: `q${i}` });
      await hub.exchange.record(jobId, CONVERSATION, `q${i}`, reply(`a${i}`));
    }
    // Stored: at most half as many more as the limit, trimmed back to it in one go (10 > 6 + 3).
    expect(await hub.redis.llen(hub.keys.memory(CONVERSATION))).toBe(6);
    await hub.redis.rpush(hub.keys.memory(CONVERSATION), 'not json', '{"role":"robot","content":"?"}');
    const history = await hub.exchange.history(CONVERSATION);
    // Six kept: the two stray entries and the last two exchanges.
    expect(history).toEqual([
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4' },
    ]);
    await hub.exchange.forget(CONVERSATION);
    expect(await hub.exchange.history(CONVERSATION)).toEqual([]);
  });

  it('records delivery progress for a retry to resume from', async () => {
    const { hub, jobId } = await withJob();
    await hub.exchange.delivered(jobId, 2);
    expect(await hub.exchange.state(jobId)).toEqual({ reply: null, delivered: 2, done: false, live: null, retried: false });
  });

  it('records the messages a streamed reply posted, for a run after a crash to edit them', async () => {
    const { hub, jobId } = await withJob();
    const progress = {
      v: 1 as const,
      messages: [
        { id: '43', chars: 4096 },
        { id: '44', chars: 120 },
      ],
      open: '44',
    };
    await hub.exchange.saveLive(jobId, progress);
    expect(await hub.exchange.state(jobId)).toMatchObject({ live: progress, delivered: 0 });
    await hub.exchange.saveLive(jobId, { v: 1, messages: progress.messages }, 2);
    expect(await hub.exchange.state(jobId)).toMatchObject({ live: { v: 1, messages: progress.messages }, delivered: 2 });
    // Progress nobody can read counts as none: the reply then starts over instead of failing.
    await hub.redis.hset(hub.queue.toKey(jobId), JOB_FIELDS.live, '{"v":1,"messages":"oops"}');
    expect(await hub.exchange.state(jobId)).toMatchObject({ live: null });
  });

  it('stores an older job’s reply without storing its exchange again when that job already had', async () => {
    const { hub, jobId } = await withJob();
    await hub.exchange.record(jobId, CONVERSATION, 'hello?', reply('from v1'), { remember: false });
    expect(await hub.exchange.state(jobId)).toMatchObject({ reply: reply('from v1') });
    expect(await hub.exchange.history(CONVERSATION)).toEqual([]);
  });
});
