import { once } from 'node:events';
import {
  answerText,
  freePort,
  type LocalServer,
  lastUserText,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { spawnWorkerProcess, startTestWorker } from '../test-support/start-worker.js';

const TOKEN = 'fault-token-0123456789';

describe('a worker killed while a job is active', () => {
  let upstream: LocalServer;
  let receiver: LocalServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startOpenAIUpstream();
    receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    gateway = await startGateway({
      config: {
        defaultModel: 'mock/m',
        providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
        hooks: { ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in` } },
        worker: { attempts: 5, backoffMs: 50, lockMs: 1000 },
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await receiver?.close();
  });

  it('has its job picked up by the next worker, and the reply is delivered once', async () => {
    let firstCall!: () => void;
    const reached = new Promise<void>((resolve) => {
      firstCall = resolve;
    });
    let calls = 0;
    upstream.handle((req, res) => {
      calls++;
      if (calls === 1) return firstCall(); // never answers: this worker is about to die
      answerText(req, res, `answer to ${lastUserText(req)}`);
    });

    const doomed = spawnWorkerProcess({
      REDIS_URL: gateway.settings.redisUrl,
      SWITCHBOARD_REDIS_PREFIX: gateway.prefix,
      SWITCHBOARD_CONFIG: gateway.settings.configPath ?? '',
    });
    const res = await fetch(`${gateway.url}/hooks/ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text: 'survive this', from: 'nina' }),
    });
    const { id } = await res.json();
    await reached; // the job is active in the doomed worker
    doomed.kill('SIGKILL');
    await once(doomed, 'exit');

    const next = startTestWorker(gateway.settings);
    try {
      const view = await eventually(async () => {
        const v = await (await fetch(`${gateway.url}/hooks/ops/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
        if (v.status !== 'completed') throw new Error(v.status);
        return v;
      }, 600);
      expect(view.reply).toBe('answer to survive this');
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]?.headers['idempotency-key']).toBe(id);
    } finally {
      await next.close();
    }
  });
});

describe('hooks while Redis is away', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    const port = await freePort();
    gateway = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      config: { hooks: { ops: { type: 'generic', token: TOKEN } } },
    });
  });
  afterAll(async () => gateway?.close());

  it('answers 503 in the JSON error shape instead of pretending the message was queued', async () => {
    const res = await fetch(`${gateway.url}/hooks/ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text: 'hello?', from: 'otto' }),
    });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('queue_unavailable');
  });
});

describe('/status with channels, across two API processes', () => {
  let upstream: LocalServer;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    upstream = await startOpenAIUpstream();
    const config = {
      defaultModel: 'mock/m',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
      hooks: {
        ops: { type: 'generic', token: TOKEN },
        idle: { type: 'generic', token: TOKEN },
      },
      worker: { concurrency: 3 },
    };
    a = await startGateway({ config });
    b = await startGateway({ config, prefix: a.prefix });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await upstream?.close();
  });

  it('reports the same channel, session, queue and worker figures from both', async () => {
    const worker = startTestWorker(a.settings);
    try {
      const ids = [];
      for (const [gateway, from] of [
        [a, 'pam'],
        [b, 'quinn'],
        [a, 'pam'],
      ] as const) {
        const res = await fetch(`${gateway.url}/hooks/ops`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ text: 'count me', from }),
        });
        ids.push((await res.json()).id);
      }
      await eventually(async () => {
        const s = await (await fetch(`${a.url}/status`)).json();
        expect(s.queues.inbound.completed).toBe(3);
      }, 400);
      // Counts and sessions are gathered in each process and written within a second.
      const [sa, sb] = await eventually(async () => {
        const both = await Promise.all([a, b].map(async (g) => (await fetch(`${g.url}/status`)).json()));
        for (const s of both) expect(s.channels.find((c: { name: string }) => c.name === 'ops')?.messages_out).toBe(3);
        for (const s of both) expect(s.active_sessions).toBe(2);
        return both;
      });
      for (const s of [sa, sb]) {
        expect(s.connected_channels).toBe(1); // 'idle' has delivered nothing and has no check: unknown, not connected
        expect(s.active_sessions).toBe(2);
        expect(s.queues.inbound).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 3 });
        expect(s.workers).toHaveLength(1);
        expect(s.workers[0].concurrency).toBe(3);
        const ops = s.channels.find((c: { name: string }) => c.name === 'ops');
        expect(ops).toMatchObject({ type: 'generic', connected: true, messages_in: 3, messages_out: 3, last_error: null });
        expect(Date.parse(ops.last_inbound_at)).not.toBeNaN();
        expect(s.channels.find((c: { name: string }) => c.name === 'idle')).toMatchObject({
          connected: null,
          checked_at: null,
          messages_in: 0,
          messages_out: 0,
        });
      }
      expect(sb.channels).toEqual(sa.channels);
    } finally {
      await worker.close();
    }
  });
});
