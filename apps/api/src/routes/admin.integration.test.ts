import { type RecordedRequest, sendJson } from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../test-support/sse-client.js';
import { eventually, startGateway } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const TOKEN = 'admin-test-hook-token-0123';
const ADMIN_KEY = 'admin-key-for-replay-tests-0123456789';
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

/** The platform's answer per reply text: 200 unless a test says otherwise. */
let platformAnswer: (text: string) => number | Promise<number> = () => 200;

const delivered = (h: HookHarness) =>
  h.platform.requests.filter((r) => r.method === 'POST').map((r: RecordedRequest) => (r.json as { text: string }).text);

describe('the admin API: jobs and replay', () => {
  let h: HookHarness;

  beforeAll(async () => {
    h = await startHookHarness({
      hooks: (url) => ({ ops: { type: 'generic', token: TOKEN, replyUrl: `${url}/in` } }),
      platform: async (req, res) => sendJson(res, await platformAnswer((req.json as { text: string }).text), { ok: true }),
      config: { adminKeys: [ADMIN_KEY] },
    });
  });
  afterEach(() => {
    platformAnswer = () => 200;
    h.reset();
  });
  afterAll(async () => {
    await h?.close();
  });

  const send = async (text: string, from = 'nina') => {
    const res = await h.post('ops', JSON.stringify({ text, from }), { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(202);
    return (await res.json()).id as string;
  };
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${h.gateway.url}${path}`, { ...init, headers: { ...ADMIN, ...(init.headers as Record<string, string>) } });
  const jobState = async (id: string) =>
    (await (await fetch(`${h.gateway.url}/hooks/ops/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json()).status;
  const until = (id: string, state: string) =>
    eventually(async () => {
      const now = await jobState(id);
      if (now !== state) throw new Error(`job ${id} is ${now}, not ${state}`);
    }, 400);

  it('lists a failed delivery with its error, re-sends the stored reply on retry, and never asks the model again', async () => {
    platformAnswer = () => 400; // final: no attempt left to cure it
    const id = await send('replay me');
    await until(id, 'failed');

    const list = await (await admin('/admin/jobs?state=failed&hook=ops')).json();
    const listed = list.data.find((job: { id: string }) => job.id === id);
    expect(listed).toMatchObject({ hook: 'ops', state: 'failed', text: 'replay me', answered: true, delivered: 0 });
    expect(listed.error).toMatch(/failed with 400/);
    expect(h.modelCalls('replay me')).toBe(1);

    platformAnswer = () => 200;
    const retry = await admin(`/admin/jobs/${id}/retry`, { method: 'POST' });
    expect(retry.status).toBe(202);
    expect(await retry.json()).toEqual({ id, status: 'queued' });
    await until(id, 'completed');
    expect(h.modelCalls('replay me')).toBe(1);
    expect(delivered(h).filter((text) => text.startsWith('reply to: replay me'))).toHaveLength(2); // refused, then taken
    expect((await (await admin('/admin/jobs?state=failed&hook=ops')).json()).data.map((j: { id: string }) => j.id)).not.toContain(
      id,
    );
  });

  it('re-runs a job that failed before it had a reply, asking the model then', async () => {
    h.upstream.handle((_req, res) => sendJson(res, 400, { error: { message: 'bad request', type: 'invalid_request_error' } }));
    const id = await send('no answer yet', 'zoe');
    await until(id, 'failed');
    expect((await (await admin('/admin/jobs?state=failed')).json()).data.find((j: { id: string }) => j.id === id)).toMatchObject({
      answered: false,
    });
    h.reset();
    expect((await admin(`/admin/jobs/${id}/retry`, { method: 'POST' })).status).toBe(202);
    await until(id, 'completed');
    expect(h.modelCalls('no answer yet')).toBe(2);
    // A reader of the job's stream follows the new run to its end, not the failure before it.
    const events = await readSse(
      await fetch(`${h.gateway.url}/hooks/ops/jobs/${id}/stream`, { headers: { 'x-hook-token': TOKEN } }),
      (event) => event.event === 'done' || event.event === 'error',
    );
    expect(events.map((event) => event.event).at(-1)).toBe('done');
    expect(events.at(-1)?.data.text).toMatch(/^reply to: no answer yet/);
    expect(delivered(h)).toContain('reply to: no answer yet (history: 0)');
  });

  it('puts a retried job behind the messages waiting in its conversation, keeping their order', async () => {
    platformAnswer = (text) => (text.startsWith('reply to: first') ? 400 : 200);
    const first = await send('first', 'omar');
    await until(first, 'failed');

    // The next message's delivery is held, so the one after it waits in line behind it.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    platformAnswer = async (text) => {
      if (text.startsWith('reply to: second')) await held;
      return 200;
    };
    const second = await send('second', 'omar');
    await eventually(async () => {
      if (!delivered(h).some((text) => text.startsWith('reply to: second'))) throw new Error('second not at the platform yet');
    }, 400);
    const third = await send('third', 'omar');
    expect((await admin(`/admin/jobs/${first}/retry`, { method: 'POST' })).status).toBe(202);
    // The retried first ran, rejoined the line behind the third and parked; while the second holds
    // the line, neither the third nor the retried first may be delivered.
    await eventually(async () => {
      const parked = (await (await admin('/admin/jobs?state=delayed&hook=ops')).json()).data.map((j: { id: string }) => j.id);
      if (!parked.includes(first) || !parked.includes(third)) throw new Error('the retried job has not parked yet');
    }, 400);
    expect(delivered(h).filter((text) => /^reply to: (first|third)/.test(text))).toEqual([
      expect.stringMatching(/^reply to: first/),
    ]);

    letGo();
    await until(first, 'completed');
    await until(second, 'completed');
    await until(third, 'completed');
    const order = delivered(h)
      .map((text) => /^reply to: (\w+)/.exec(text)?.[1])
      .filter((word) => word === 'first' || word === 'second' || word === 'third');
    expect(order).toEqual(['first', 'second', 'third', 'first']); // the refused first, then the line in order
    expect(h.modelCalls('first')).toBe(1);

    // The conversation goes on: a new message runs after all of them.
    const fourth = await send('fourth', 'omar');
    await until(fourth, 'completed');
  });

  it('retries every failed job of a hook in one call', async () => {
    platformAnswer = () => 400;
    const ids = [await send('bulk one', 'p1'), await send('bulk two', 'p2')];
    for (const id of ids) await until(id, 'failed');
    platformAnswer = () => 200;
    const res = await admin('/admin/hooks/ops/retry', { method: 'POST' });
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body.hook).toBe('ops');
    expect(body.ids).toEqual(expect.arrayContaining(ids));
    for (const id of ids) await until(id, 'completed');
    expect(h.modelCalls('bulk one') + h.modelCalls('bulk two')).toBe(2);
  });

  it('answers 409 for a job that has not failed, 404 for an unknown one, 400 for a bad filter', async () => {
    const id = await send('all fine');
    await until(id, 'completed');
    const conflict = await admin(`/admin/jobs/${id}/retry`, { method: 'POST' });
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).error.code).toBe('job_not_failed');
    const missing = await admin('/admin/jobs/nope/retry', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('job_not_found');
    const bad = await admin('/admin/jobs?state=lost');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe('state');
    expect((await admin('/admin/hooks/nope/retry', { method: 'POST' })).status).toBe(404);
    const badLimit = await admin('/admin/hooks/ops/retry', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 'all' }),
    });
    expect(badLimit.status).toBe(400);
    expect((await badLimit.json()).error.param).toBe('limit');
    const unknownParam = await admin('/admin/jobs?status=failed');
    expect(unknownParam.status).toBe(400);
    expect((await unknownParam.json()).error.param).toBe('status');
  });

  it('refuses the admin routes without the admin key, and an API-less hook token does not open them', async () => {
    const none = await fetch(`${h.gateway.url}/admin/jobs`);
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('invalid_admin_key');
    const wrong = await fetch(`${h.gateway.url}/admin/jobs/x/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('serves Bull Board at /admin/queues behind the same key, with a browser login', async () => {
    const anonymous = await fetch(`${h.gateway.url}/admin/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    const login = { authorization: `Basic ${Buffer.from(`ops:${ADMIN_KEY}`).toString('base64')}` };
    const page = await fetch(`${h.gateway.url}/admin/queues`, { headers: login });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const queues = await fetch(`${h.gateway.url}/admin/queues/api/queues?activeQueue=inbound&status=failed`, { headers: login });
    expect(queues.status).toBe(200);
    expect((await queues.json()).queues.map((q: { name: string }) => q.name)).toContain('inbound');
    const bearer = await fetch(`${h.gateway.url}/admin/queues/api/queues`, { headers: ADMIN });
    expect(bearer.status).toBe(200);
  });
});

describe('the admin routes without admin keys', () => {
  it('are refused with 403 once API keys are set, and an API key does not open them', async () => {
    const gateway = await startGateway({ config: { apiKeys: ['sk-api-key-0123'] } });
    try {
      for (const path of ['/admin/jobs', '/admin/status', '/admin/queues']) {
        const res = await fetch(`${gateway.url}${path}`, { headers: { authorization: 'Bearer sk-api-key-0123' } });
        expect(res.status).toBe(403);
        expect((await res.json()).error.code).toBe('admin_keys_not_configured');
      }
      // The dashboard page holds no data: it is served, and asks for a key.
      expect((await fetch(`${gateway.url}/dashboard`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('are open in a local setup with neither API keys nor admin keys', async () => {
    const gateway = await startGateway();
    try {
      const res = await fetch(`${gateway.url}/admin/jobs?state=completed`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ object: 'list', data: [] });
    } finally {
      await gateway.close();
    }
  });
});
