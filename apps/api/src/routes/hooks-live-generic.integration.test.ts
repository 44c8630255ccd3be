import { once } from 'node:events';
import { eventually, type LocalServer, sendJson, startLocalServer } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readSse, type SseEvent } from '../test-support/sse-client.js';
import { heldStream, type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

const TOKEN = 'live-hook-token-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ANSWER = 'Streaming, one small piece at a time, until the whole answer is there.';

let receiver: LocalServer | undefined;
let harness: LiveHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await receiver?.close();
  harness = receiver = undefined;
});

async function start() {
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  harness = await startLiveHarness({
    hooks: {
      live: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/inbox` },
      whole: { type: 'generic', token: TOKEN, stream: false },
    },
  });
  return { receiver, harness };
}

async function ask(hook: string, text: string, from = 'sam'): Promise<string> {
  const res = await harness!.post(hook, JSON.stringify({ text, from }), AUTH);
  expect(res.status).toBe(202);
  return (await res.json()).id;
}

const stream = (hook: string, id: string, headers: Record<string, string> = AUTH) =>
  fetch(`${harness!.gateway.url}/hooks/${hook}/jobs/${id}/stream`, { headers });
const ended = (event: SseEvent) => event.event === 'done' || event.event === 'error';
const deltas = (events: SseEvent[]) => events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);

describe('the generic job stream', () => {
  it('streams the reply as delta events and ends with done holding the whole reply; replyUrl still gets one POST', async () => {
    const { receiver, harness } = await start();
    harness.script('stream to me', { text: ANSWER, firstTokenMs: 100, chunkDelayMs: 30, chunkChars: 5 });
    harness.startWorker();
    const id = await ask('live', 'stream to me');

    const res = await stream('live', id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readSse(res, ended);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { text: ANSWER, model: 'mock/gpt-4o-mini' } });
    expect(deltas(events).length).toBeGreaterThan(2);
    expect(deltas(events).join('')).toBe(ANSWER);
    expect(events.every((e) => /^\d+-\d+$/.test(e.id ?? ''))).toBe(true);
    await eventually(() => expect(receiver.requests.map((r) => (r.json as { text: string }).text)).toEqual([ANSWER]));
  });

  it('resumes after Last-Event-ID with only the events that came later', async () => {
    const { harness } = await start();
    harness.script('resume me', { text: ANSWER, chunkDelayMs: 30, chunkChars: 5 });
    harness.startWorker();
    const id = await ask('live', 'resume me');

    const first = await readSse(await stream('live', id), (event) => event.event === 'delta');
    const rest = await readSse(await stream('live', id, { ...AUTH, 'last-event-id': first.at(-1)!.id! }), ended);
    expect(rest.some((e) => e.id === first.at(-1)!.id)).toBe(false);
    expect(deltas(first).join('') + deltas(rest).join('')).toBe(ANSWER);
    expect(rest.at(-1)).toMatchObject({ event: 'done', data: { text: ANSWER } });
  });

  it('writes no feed for a job nobody reads; a reader that comes after the end gets done with the whole reply', async () => {
    const { receiver, harness } = await start();
    harness.script('nobody listens', { text: ANSWER, chunkDelayMs: 5, chunkChars: 5 });
    harness.startWorker();
    const id = await ask('live', 'nobody listens');
    await eventually(() => expect(receiver.requests.map((r) => (r.json as { text: string }).text)).toEqual([ANSWER]));
    // The reply reaches the receiver a moment before the job is recorded as completed: a reader
    // that came in between would get the text so far as a delta, then done (seen at load 10-14).
    await eventually(async () => {
      const res = await fetch(`${harness.gateway.url}/hooks/live/jobs/${id}`, { headers: AUTH });
      expect(await res.json()).toMatchObject({ status: 'completed' });
    });
    expect(await harness.hub.redis.exists(harness.hub.keys.feed(id))).toBe(0);

    const events = await readSse(await stream('live', id), ended);
    expect(events).toEqual([{ event: 'done', data: { text: ANSWER } }]);
  });

  it('gives a reader that comes while the reply is being written the text so far, then the rest', async () => {
    const { harness } = await start();
    const { hold, release } = heldStream();
    harness.script('join late', { text: ANSWER, chunkDelayMs: 5, chunkChars: 5, holdAfter: 4, hold });
    harness.startWorker();
    const id = await ask('live', 'join late');
    await eventually(() => expect(harness.modelCalls('join late')).toBe(1));

    const res = await stream('live', id);
    release();
    const events = await readSse(res, ended);
    expect(deltas(events).join('')).toBe(ANSWER);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { text: ANSWER } });
  });

  it('gives a reader the worker did not see in time the whole reply as one delta, then done', async () => {
    const { harness } = await start();
    harness.script('too quick', { text: ANSWER, chunkDelayMs: 1, chunkChars: 5 });
    const id = await ask('live', 'too quick');
    const res = await stream('live', id);
    // As when the worker asked whether the shard had readers just before this one came (hub job-feed.ts).
    const watching = harness.hub.keys.feedWatching();
    await eventually(async () => expect(await harness.hub.redis.exists(watching)).toBe(1));
    await harness.hub.redis.del(watching);
    harness.startWorker();
    const events = await readSse(res, ended);
    expect(events).toEqual([
      { event: 'delta', data: { text: ANSWER } },
      { event: 'done', data: { text: ANSWER } },
    ]);
    expect(await harness.hub.redis.exists(harness.hub.keys.feed(id))).toBe(0);
  });

  it('ends a job of a hook that does not stream with done, from the job', async () => {
    const { harness } = await start();
    harness.startWorker();
    const id = await ask('whole', 'all at once');
    const events = await readSse(await stream('whole', id), ended);
    expect(events).toEqual([{ event: 'done', data: { text: 'reply to: all at once' } }]);
  });

  it('refuses a reader without the hook token (401), an unknown job (404) and a Last-Event-ID it never sent (400)', async () => {
    const { harness } = await start();
    const id = await ask('live', 'guarded');
    expect((await stream('live', id, {})).status).toBe(401);
    const missing = await stream('live', 'no-such-job');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 'job_not_found' });
    const bad = await stream('live', id, { ...AUTH, 'last-event-id': '1-2; event: done' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ param: 'Last-Event-ID' });
    void harness;
  });

  it('treats a reader hanging up as information, not an error', async () => {
    const { harness } = await start();
    harness.script('hang up', { text: ANSWER, firstTokenMs: 2000 });
    const id = await ask('live', 'hang up');
    const controller = new AbortController();
    const res = await fetch(`${harness.gateway.url}/hooks/live/jobs/${id}/stream`, { headers: AUTH, signal: controller.signal });
    expect(res.status).toBe(200);
    controller.abort();
    const line = await eventually(() => {
      const found = harness.gateway.logs.find((l) => l.message === 'client closed request' && String(l.path).endsWith('/stream'));
      expect(found).toBeDefined();
      return found!;
    });
    expect(line).toMatchObject({ level: 'info', status: 499 });
    expect(harness.gateway.logs.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
  });

  it('after a worker is SIGKILLed mid-stream, a reader sees reset, then the new run’s deltas, then the whole reply', async () => {
    const { receiver, harness } = await start();
    const { hold, release } = heldStream();
    harness.script('survive this', { text: ANSWER, chunkDelayMs: 30, chunkChars: 5, holdAfter: 4, hold });
    const child = await harness.spawnWorker();
    const id = await ask('live', 'survive this');
    const early = await readSse(await stream('live', id), (event) => event.event === 'delta');
    child.kill('SIGKILL');
    await once(child, 'exit');
    release();

    harness.startWorker();
    const events = await readSse(await stream('live', id, { ...AUTH, 'last-event-id': early.at(-1)!.id! }), ended);
    const reset = events.findIndex((e) => e.event === 'reset');
    expect(reset).toBeGreaterThanOrEqual(0);
    expect(deltas(events.slice(reset)).join('')).toBe(ANSWER);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { text: ANSWER } });
    await eventually(() => expect(receiver.requests).toHaveLength(1));
  });
});
