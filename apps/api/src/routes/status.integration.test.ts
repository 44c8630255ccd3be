import { deleteKeys, freePort, testPrefix, testRedisUrl } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

const chat = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });

describe('/health, /ready and /status with Redis up', () => {
  const prefix = testPrefix();
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    a = await startGateway({ prefix });
    b = await startGateway({ prefix }); // a second API process on the same Redis
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeys(prefix);
  });

  it('answers /health with status ok', async () => {
    const res = await fetch(`${a.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /ready with 200 when Redis answers', async () => {
    await eventually(async () => expect((await fetch(`${a.url}/ready`)).status).toBe(200));
  });

  it('reports the status record with uptime, channels, sessions, queues, workers and redis', async () => {
    const status = await (await fetch(`${a.url}/status`)).json();
    expect(status).toMatchObject({
      status: 'ok',
      version: expect.any(String),
      uptime_seconds: expect.any(Number),
      connected_channels: 0,
      channels: [],
      active_sessions: 0,
      queues: { inbound: { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 } },
      workers: [],
      deployments: [
        { id: 'local/echo', kind: 'chat', routes: [], state: 'ok', cooldown_until: null, last_error: null, last_error_at: null },
      ],
      redis: { connected: true },
    });
    expect(Date.parse(status.started_at)).not.toBeNaN();
  });

  it('counts each distinct /v1 user once as an active session, the same in every API process', async () => {
    await chat(a.url, { user: 'alice' });
    await chat(b.url, { user: 'alice' });
    await chat(b.url, { user: 'bob' });
    await chat(a.url, {}); // no user: not a session
    for (const gateway of [a, b]) {
      await eventually(async () => expect((await (await fetch(`${gateway.url}/status`)).json()).active_sessions).toBe(2));
    }
  });
});

describe('requests and logs', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => gateway?.close());

  it("echoes the client's X-Request-Id, or makes one", async () => {
    const given = await fetch(`${gateway.url}/health`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await fetch(`${gateway.url}/v1/models`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const error = await fetch(`${gateway.url}/nope`, { headers: { 'x-request-id': 'trace-err' } });
    expect(error.headers.get('x-request-id')).toBe('trace-err');
  });

  it('logs one JSON line per request with method, path, status, ms, model and request id, never the messages', async () => {
    const res = await chat(
      gateway.url,
      { messages: [{ role: 'user', content: 'my private diary entry' }] },
      { 'x-request-id': 'log-1' },
    );
    expect(res.status).toBe(200);
    await res.text();
    const line = await eventually(() => {
      const found = gateway.logs.find((l) => l.request_id === 'log-1');
      if (!found) throw new Error('no log line yet');
      return found;
    });
    expect(line).toMatchObject({
      message: 'request',
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      model: 'local/echo',
    });
    expect(typeof line.ms).toBe('number');
    expect(gateway.logs.filter((l) => l.request_id === 'log-1')).toHaveLength(1);
    expect(gateway.rawLogs.join('\n')).not.toContain('private diary');
  });

  it('lists every configured model with owned_by equal to its provider', async () => {
    const list = await (await fetch(`${gateway.url}/v1/models`)).json();
    expect(list.object).toBe('list');
    expect(list.data).toContainEqual({ id: 'local/echo', object: 'model', created: expect.any(Number), owned_by: 'local' });
  });

  it('answers GET /v1/models/default with the entry of the model it stands for, nothing internal', async () => {
    const entry = await (await fetch(`${gateway.url}/v1/models/default`)).json();
    expect(entry).toEqual({ id: 'local/echo', object: 'model', created: expect.any(Number), owned_by: 'local' });
  });
});

describe('with Redis away', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    const port = await freePort();
    gateway = await startGateway({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => gateway?.close());

  it('still answers /health and /v1, answers /ready with 503 and marks /status degraded', async () => {
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    const completion = await chat(gateway.url, { user: 'carol' });
    expect(completion.status).toBe(200);
    expect((await completion.json()).choices[0].message.content).toBe('Echo: hi');
    const ready = await fetch(`${gateway.url}/ready`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.code).toBe('redis_unavailable');
    const status = await (await fetch(`${gateway.url}/status`)).json();
    expect(status).toMatchObject({
      status: 'degraded',
      redis: { connected: false },
      active_sessions: null,
      deployments: [{ id: 'local/echo', state: 'unknown' }],
    });
  });
});

describe('REDIS_URL with a database index', () => {
  it('keeps its state in that database', async () => {
    const url = `${testRedisUrl().replace(/\/\d+$/, '')}/7`;
    const gateway = await startGateway({ env: { REDIS_URL: url } });
    const db7 = new Redis(url);
    try {
      await eventually(async () => expect((await fetch(`${gateway.url}/ready`)).status).toBe(200));
      await chat(gateway.url, { user: 'dave' });
      await eventually(async () => expect(await db7.zscore(`${gateway.prefix}:sessions:active`, 'api:dave')).not.toBeNull());
    } finally {
      db7.disconnect();
      await gateway.close();
      await deleteKeys(gateway.prefix, url);
    }
  });
});
