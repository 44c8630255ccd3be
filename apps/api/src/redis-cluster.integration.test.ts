import {
  eventually,
  type LocalServer,
  type PrivateCluster,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
  startPrivateCluster,
  testPrefix,
} from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './test-support/start-gateway.js';
import { revealingModel } from './test-support/start-hook-harness.js';
import { startTestWorker, type TestWorker } from './test-support/start-worker.js';

/**
 * The hook path end to end on a real three-master Redis Cluster (the local redis-server, on free
 * ports): accept, per-conversation order, answer, memory, delivery, idempotency, a hook's rate
 * limit and /status — with the pipeline's keys in one hash slot (one shard) and the shared state's
 * busy keys tagged by their subject.
 */
const TOKEN = 'cluster-hook-token-0123456789';
const prefix = testPrefix();
let cluster: PrivateCluster;
let upstream: LocalServer;
let receiver: LocalServer;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  cluster = await startPrivateCluster(3);
  upstream = await startOpenAIUpstream(revealingModel());
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  gateway = await startGateway({
    prefix,
    env: { REDIS_URL: cluster.url },
    config: {
      defaultModel: 'up/m',
      providers: { up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
      hooks: {
        ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in`, stream: false },
        limited: { type: 'generic', token: TOKEN, stream: false, rateLimit: { requestsPerMinute: 2 } },
        budgeted: { type: 'generic', token: TOKEN, stream: false, budget: { tokensPerDay: 1 } },
      },
      worker: { attempts: 3, backoffMs: 50, lockMs: 2_000 },
    },
  });
  worker = startTestWorker(gateway.settings);
}, 30_000);

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await Promise.all([upstream?.close(), receiver?.close()]);
  await cluster?.stop();
});

const send = (hook: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify(body),
  });

const deliveries = () => receiver.requests.map((r) => r.json as { id: string; to: string; text: string });

describe('the hook path on a three-master Redis Cluster', () => {
  it('runs on a cluster client with every key under the {prefix} hash tag', () => {
    expect(gateway.settings.redis.mode).toBe('cluster');
    expect(gateway.settings.keyPrefix).toBe(`{${prefix}}`);
  });

  it('answers a conversation in order, each reply seeing the exchanges before it', async () => {
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const res = await send('ops', { from: 'nina', text });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await eventually(() => expect(deliveries().filter((d) => d.to === 'nina')).toHaveLength(3));
    expect(
      deliveries()
        .filter((d) => d.to === 'nina')
        .map((d) => [d.id, d.text]),
    ).toEqual([
      [ids[0], 'reply to: one (history: 0)'],
      [ids[1], 'reply to: two (history: 2)'],
      [ids[2], 'reply to: three (history: 4)'],
    ]);
  });

  it('queues a message the caller sends twice with one Idempotency-Key once', async () => {
    const first = await (await send('ops', { from: 'omar', text: 'once' }, { 'idempotency-key': 'k-1' })).json();
    const again = await (await send('ops', { from: 'omar', text: 'once' }, { 'idempotency-key': 'k-1' })).json();
    expect(again.id).toBe(first.id);
    await eventually(() => expect(deliveries().filter((d) => d.to === 'omar')).toHaveLength(1));
    // The platform has the reply a moment before BullMQ marks the job completed.
    await eventually(async () => {
      const view = await (
        await fetch(`${gateway.url}/hooks/ops/jobs/${first.id}`, { headers: { 'x-hook-token': TOKEN } })
      ).json();
      expect(view).toMatchObject({ status: 'completed', reply: 'reply to: once (history: 0)', attempts: 1 });
    });
  });

  it('holds a hook to its rate limit', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send('limited', { from: 'pia', text: `m${i}` })).status);
    expect(statuses).toEqual([202, 202, 429]);
  });

  it('reports channels, queue and workers from the cluster in /status', async () => {
    await eventually(async () => {
      const status = await (await fetch(`${gateway.url}/status`)).json();
      expect(status).toMatchObject({ status: 'ok', redis: { connected: true } });
      expect(status.channels.find((c: { name: string }) => c.name === 'ops')).toMatchObject({ messages_in: 4, messages_out: 4 });
      expect(status.queues.inbound).toMatchObject({ completed: 6, failed: 0 });
      expect(status.workers).toHaveLength(1);
    });
  });

  it('records usage and holds a hook to its budget (script and MULTI in the one slot)', async () => {
    const jobView = async (id: string) =>
      (await fetch(`${gateway.url}/hooks/budgeted/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
    const finished = (id: string) =>
      eventually(async () => {
        const view = await jobView(id);
        if (view.status !== 'completed' && view.status !== 'failed') throw new Error(`still ${view.status}`);
        return view;
      });
    const first = await (await send('budgeted', { from: 'quinn', text: 'a' })).json();
    expect(await finished(first.id)).toMatchObject({ status: 'completed' });
    const second = await (await send('budgeted', { from: 'quinn', text: 'b' })).json();
    expect(await finished(second.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/insufficient_quota/) });
    const usage = await (await fetch(`${gateway.url}/admin/usage?group_by=hook`)).json();
    expect(usage.data.find((row: { hook: string }) => row.hook === 'budgeted')).toMatchObject({ requests: 1 });
  });

  it("keeps the pipeline's keys in one slot, and spreads the rate windows by subject", async () => {
    const perNode = await Promise.all(
      cluster.nodes.map(async (node) => {
        const [host, port] = node.split(':');
        const redis = new Redis(Number(port), host!);
        try {
          return { pipeline: await redis.keys(`{${prefix}}:*`), windows: await redis.keys(`${prefix}:ratelimit:*`) };
        } finally {
          redis.disconnect();
        }
      }),
    );
    const counts = perNode.map(({ pipeline }) => pipeline.length);
    expect(counts.filter((n) => n > 0)).toHaveLength(1);
    expect(Math.max(...counts)).toBeGreaterThan(10);
    // The hook's own window (`hook:limited:…`) is tagged by its subject, away from the deployment's tag.
    expect(perNode.flatMap(({ windows }) => windows)).toEqual([
      expect.stringMatching(new RegExp(`^${prefix}:ratelimit:\\{hook:limited[^}]*\\}:\\d+$`)),
    ]);
  });
});
