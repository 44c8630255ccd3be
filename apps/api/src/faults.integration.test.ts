import { type LocalServer, type PrivateRedis, sendJson, startLocalServer, startPrivateRedis } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from './test-support/start-worker.js';

const TOKEN = 'outage-token-0123456789';

/**
 * One gateway and one worker on a private Redis that is killed and started again on the same
 * port. The phases run in order and share what was accepted, so the last one can count: every
 * message answered 202 is delivered exactly once. The private Redis keeps nothing on disk, so
 * only messages delivered before the kill, and those accepted after the restart, are counted.
 */
describe('a Redis outage and its recovery, without restarting the gateway or the worker', () => {
  let redis: PrivateRedis;
  let receiver: LocalServer;
  let gateway: TestGateway;
  let worker: TestWorker;
  const accepted: string[] = [];
  const refusedTexts: string[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    gateway = await startGateway({
      env: { REDIS_URL: redis.url },
      config: {
        hooks: {
          ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in` },
          // Its access check reads Redis (approved people) before anything is queued.
          guarded: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in`, access: { users: ['ann'] } },
        },
        worker: { attempts: 6, backoffMs: 100 },
      },
    });
    worker = startTestWorker(gateway.settings);
  });

  afterAll(async () => {
    // Clients of a Redis that is away wait for it on close: bring it back to close them cleanly.
    if (redis && !redis.up) await redis.start();
    await worker?.close();
    await gateway?.close();
    await receiver?.close();
    await redis?.kill();
  });

  const post = (text: string, from: string) =>
    fetch(`${gateway.url}/hooks/ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text, from }),
    });

  const deliveriesOf = (id: string) => receiver.requests.filter((r) => r.headers['idempotency-key'] === id);

  async function acceptAndDeliver(texts: string[]): Promise<void> {
    const ids: string[] = [];
    for (const [i, text] of texts.entries()) {
      const res = await post(text, `user-${i}`);
      expect(res.status).toBe(202);
      ids.push((await res.json()).id);
    }
    accepted.push(...ids);
    await eventually(() => {
      for (const id of ids) expect(deliveriesOf(id)).toHaveLength(1);
    }, 400);
  }

  it('accepts hook messages with 202 and delivers their replies while Redis is up', async () => {
    await acceptAndDeliver(['before one', 'before two', 'before three']);
    const delivered = receiver.requests.map((r) => (r.json as { text: string }).text).sort();
    expect(delivered).toEqual(['Echo: before one', 'Echo: before three', 'Echo: before two']);
  });

  it('keeps /health and /v1 answering while Redis is down, and refuses hooks with 503 queue_unavailable', async () => {
    await redis.kill();

    await eventually(async () => expect((await fetch(`${gateway.url}/ready`)).status).toBe(503), 200);
    const ready = await fetch(`${gateway.url}/ready`);
    expect((await ready.json()).error.code).toBe('redis_unavailable');

    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const completion = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'still there?' }] }),
    });
    expect(completion.status).toBe(200);
    expect((await completion.json()).choices[0].message.content).toBe('Echo: still there?');

    for (const text of ['during one', 'during two']) {
      const res = await post(text, 'user-down');
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(body.error.code).toBe('queue_unavailable');
      refusedTexts.push(text);
    }

    // A stranger to a hook with `access` is neither refused nor told anything: the platform retries later.
    const guarded = await fetch(`${gateway.url}/hooks/guarded`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text: 'let me in', from: 'bob' }),
    });
    expect(guarded.status).toBe(503);
    expect((await guarded.json()).error.code).toBe('queue_unavailable');

    const status = await fetch(`${gateway.url}/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ status: 'degraded', redis: { connected: false } });
  });

  it('becomes ready again once Redis is back on the same port, then accepts and delivers every message once', async () => {
    await redis.start();

    await eventually(async () => expect((await fetch(`${gateway.url}/ready`)).status).toBe(200), 300);
    await eventually(async () => expect((await (await fetch(`${gateway.url}/status`)).json()).status).toBe('ok'), 300);

    await acceptAndDeliver(['after one', 'after two', 'after three']);

    // The count: every 202 delivered exactly once, nothing refused with 503 delivered at all.
    expect(accepted).toHaveLength(6);
    for (const id of accepted) expect(deliveriesOf(id)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(accepted.length);
    const texts = receiver.requests.map((r) => (r.json as { text: string }).text);
    for (const text of refusedTexts) expect(texts).not.toContain(`Echo: ${text}`);
    expect(texts).toEqual(expect.arrayContaining(['Echo: after one', 'Echo: after two', 'Echo: after three']));
  });
});
