import {
  answerText,
  type LocalServer,
  lastUserText,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const TOKEN = 'hook-token-0123456789';
let upstream: LocalServer;
let receiver: LocalServer;
let gateway: TestGateway;
let worker: TestWorker;

/** The model answers `reply to: <text> (history: N)`, so each reply shows what the model saw. */
function modelHandler(): Parameters<LocalServer['handle']>[0] {
  return (req, res) => {
    const body = req.json as { model: string; messages: { role: string }[] };
    const history = body.messages.filter((m) => m.role !== 'system').length - 1;
    // Streamed or whole, as the worker asks (generic hooks stream by default).
    answerText(req, res, `reply to: ${lastUserText(req)} (history: ${history})`);
  };
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream(modelHandler());
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
      hooks: {
        support: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/inbox`, system: 'You are support.' },
        quiet: { type: 'generic', token: TOKEN },
      },
      // orderRecheckMs is long on purpose: a message waiting for its predecessor must be woken by it.
      worker: { concurrency: 4, attempts: 4, backoffMs: 50, lockMs: 2000, orderRecheckMs: 60_000 },
    },
  });
  worker = startTestWorker(gateway.settings);
});

afterEach(() => {
  upstream.handle(modelHandler());
  receiver.handle((_req, res) => sendJson(res, 200, { ok: true }));
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await upstream?.close();
  await receiver?.close();
});

function send(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, hook = 'support') {
  return fetch(`${gateway.url}/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function job(id: string, hook = 'support') {
  const res = await fetch(`${gateway.url}/hooks/${hook}/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } });
  return res.json();
}

async function finished(id: string, hook = 'support') {
  return eventually(async () => {
    const view = await job(id, hook);
    if (view.status !== 'completed' && view.status !== 'failed') throw new Error(`still ${JSON.stringify(view)}`);
    return view;
  }, 400);
}

const deliveriesTo = (from: string) => receiver.requests.filter((r) => (r.json as { to?: string })?.to === from);

describe('generic hooks: access and input', () => {
  it('answers an unknown hook name with a JSON 404', async () => {
    const res = await send({ text: 'hi', from: 'a' }, {}, 'nope');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('hook_not_found');
  });

  it('answers 401 without a token or with a wrong one, in either header', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-000000' }, { 'x-hook-token': 'nope' }] as Record<
      string,
      string
    >[]) {
      const res = await send({ text: 'hi', from: 'a' }, headers);
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication_error' });
    }
  });

  it('accepts the token in X-Hook-Token as well as in Authorization', async () => {
    const res = await send({ text: 'hi', from: 'token-user' }, { 'x-hook-token': TOKEN });
    expect(res.status).toBe(202);
  });

  it.each([
    ['broken JSON', '{"text": "hi", "from": '],
    ['a number as text', { text: 42, from: 'a' }],
    ['an empty chat text', { text: '', from: 'a' }],
    ['a missing sender', { text: 'hi' }],
    ['an unknown action', { text: 'hi', from: 'a', action: 'explode' }],
  ])('answers 400 in the JSON error shape for %s', async (_name, body) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });
});

describe('generic hooks: answering and delivering', () => {
  it('queues with 202, answers through the model and POSTs the reply to replyUrl with Idempotency-Key', async () => {
    const res = await send({ text: 'where is my order?', from: 'erin' });
    expect(res.status).toBe(202);
    const { id, status } = await res.json();
    expect(status).toBe('queued');

    const view = await finished(id);
    expect(view).toMatchObject({ id, status: 'completed', reply: 'reply to: where is my order? (history: 0)', attempts: 1 });
    const [delivery] = deliveriesTo('erin');
    expect(delivery?.url).toBe('/inbox');
    expect(delivery?.headers['idempotency-key']).toBe(id);
    expect(delivery?.json).toEqual({
      id,
      hook: 'support',
      to: 'erin',
      text: 'reply to: where is my order? (history: 0)',
      model: 'mock/gpt-4o-mini',
      created: expect.any(Number),
    });
    const sent = upstream.requests.at(-1)?.json as { messages: { role: string; content: string }[] };
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are support.' });
  });

  it('remembers the conversation, answers its messages in arrival order, and forgets it on reset', async () => {
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three', 'four']) ids.push((await (await send({ text, from: 'fred' })).json()).id);
    const replies = [];
    for (const id of ids) replies.push((await finished(id)).reply);
    expect(replies).toEqual([
      'reply to: one (history: 0)',
      'reply to: two (history: 2)',
      'reply to: three (history: 4)',
      'reply to: four (history: 6)',
    ]);
    expect(deliveriesTo('fred').map((d) => (d.json as { text: string }).text)).toEqual(replies);

    const reset = await send({ from: 'fred', action: 'reset' });
    expect(reset.status).toBe(202);
    const after = (await (await send({ text: 'five', from: 'fred' })).json()).id;
    expect((await finished(after)).reply).toBe('reply to: five (history: 0)');
  });

  it('answers different conversations in parallel', async () => {
    // gina's answer is held until hank's request reaches the model: one at a time would never finish.
    let hankArrived!: () => void;
    const hank = new Promise<void>((resolve) => {
      hankArrived = resolve;
    });
    upstream.handle(async (req, res) => {
      if (lastUserText(req) === 'from gina') await hank;
      else hankArrived();
      modelHandler()(req, res, undefined as never);
    });
    const g = (await (await send({ text: 'from gina', from: 'gina' })).json()).id;
    const h = (await (await send({ text: 'from hank', from: 'hank' })).json()).id;
    expect((await finished(g)).status).toBe('completed');
    expect((await finished(h)).status).toBe('completed');
  });

  it('processes a repeated Idempotency-Key once and returns the same id', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'idempotency-key': `key-${Date.now()}` };
    const first = await (await send({ text: 'only once', from: 'ivan' }, headers)).json();
    const second = await (await send({ text: 'only once', from: 'ivan' }, headers)).json();
    expect(second.id).toBe(first.id);
    await finished(first.id);
    const third = await (await send({ text: 'only once', from: 'ivan' }, headers)).json();
    expect(third.id).toBe(first.id);
    expect(upstream.requests.filter((r) => lastUserText(r) === 'only once')).toHaveLength(1);
    expect(deliveriesTo('ivan')).toHaveLength(1);
  });

  it('retries a failed delivery with the same reply instead of asking the model again', async () => {
    let failures = 0;
    receiver.handle((req, res) => {
      if ((req.json as { to: string }).to === 'judy' && failures < 2) {
        failures++;
        return sendJson(res, 503, { error: 'busy' });
      }
      sendJson(res, 200, { ok: true });
    });
    const { id } = await (await send({ text: 'retry me', from: 'judy' })).json();
    const view = await finished(id);
    expect(view).toMatchObject({ status: 'completed', attempts: 3 });
    expect(upstream.requests.filter((r) => lastUserText(r) === 'retry me')).toHaveLength(1);
    const attempts = deliveriesTo('judy');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => (a.json as { text: string }).text)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers['idempotency-key'])).size).toBe(1);
  });

  it('fails the job after the last attempt and shows the error on the channel', async () => {
    receiver.handle((_req, res) => sendJson(res, 500, { error: 'down' }));
    const doomed = await (await send({ text: 'doomed', from: 'kim' })).json();
    const { id } = doomed;
    expect(doomed).toMatchObject({ status: 'queued' });
    const view = await finished(id);
    expect(view.status).toBe('failed');
    expect(view.attempts).toBe(4);
    expect(view.error).toMatch(/500/);
    const status = await (await fetch(`${gateway.url}/status`)).json();
    const channel = status.channels.find((c: { name: string }) => c.name === 'support');
    expect(channel, JSON.stringify(status)).toBeDefined();
    expect(channel.connected).toBe(false);
    expect(channel.last_error).toMatch(/500/);

    receiver.handle((_req, res) => sendJson(res, 200, { ok: true }));
    const again = await (await send({ text: 'fine again', from: 'kim' })).json();
    const recovered = again.id ?? JSON.stringify(again);
    expect((await finished(recovered)).status).toBe('completed');
    // Deliveries are counted in the worker and written within a second.
    await eventually(async () => {
      const after = await (await fetch(`${gateway.url}/status`)).json();
      expect(after.channels.find((c: { name: string }) => c.name === 'support')).toMatchObject({ connected: true });
    });
  });

  it('keeps the reply readable at the job URL when the hook has no replyUrl', async () => {
    const { id } = await (await send({ text: 'poll me', from: 'liam' }, undefined, 'quiet')).json();
    expect(await finished(id, 'quiet')).toMatchObject({ status: 'completed', reply: 'reply to: poll me (history: 0)' });
  });

  it('answers 404 for a job of another hook and 401 for a job look-up without the token', async () => {
    const { id } = await (await send({ text: 'mine', from: 'mia' })).json();
    expect((await fetch(`${gateway.url}/hooks/quiet/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).status).toBe(404);
    expect((await fetch(`${gateway.url}/hooks/support/jobs/${id}`)).status).toBe(401);
  });
});
