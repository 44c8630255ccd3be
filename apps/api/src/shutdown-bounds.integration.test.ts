import { Agent, request } from 'node:http';
import {
  answerText,
  deleteKeys,
  freePort,
  type LocalServer,
  lastUserText,
  type PrivateRedis,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
  startPrivateRedis,
  testPrefix,
} from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { type SpawnedProcess, spawnApiProcess, spawnLoggingWorkerProcess } from './test-support/spawn-process.js';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';
import { startTestWorker } from './test-support/start-worker.js';

/** Every shutdown is bounded: the API by its drain, the worker by its grace, each plus 5 s, whatever Redis does. */
const MARGIN_MS = 5_000;
const GRACE_MS = 800;
const TOKEN = 'bounds-token-0123456789';
/**
 * Bounds on a hang, not on speed (the bounds under test are the exits' above): starting a process
 * that loads the app took 15–28 s of wall on this 2-core machine under other work (load 14–20).
 */
const TEST_TIMEOUT = { timeout: 120_000 };
/** `eventually`'s attempts (20 ms apart) for a spawned API to answer: 60 s. */
const START_ATTEMPTS = 3_000;

const spawned: SpawnedProcess[] = [];
afterEach(async () => {
  for (const proc of spawned.splice(0)) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
  }
});
const track = (proc: SpawnedProcess) => {
  spawned.push(proc);
  return proc;
};

/** An upstream that holds every call until the test lets go (or the caller hangs up). */
async function holdingUpstream() {
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => {};
  let arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const upstream = await startOpenAIUpstream(async (req, res) => {
    reached();
    await released;
    // As asked: one completion, or a stream (a generic hook's replies stream by default).
    answerText(req, res, `answer to ${lastUserText(req)}`);
  });
  return {
    upstream,
    arrived: () => arrived,
    release: () => release(),
    rearm() {
      released = new Promise<void>((resolve) => {
        release = resolve;
      });
      arrived = new Promise<void>((resolve) => {
        reached = resolve;
      });
    },
  };
}

describe('the API process', TEST_TIMEOUT, () => {
  it('exits 0 within its drain + 5 s with Redis unreachable, an idle keep-alive client and a call whose upstream never answers', async () => {
    const held = await holdingUpstream();
    const port = await freePort();
    const api = track(
      spawnApiProcess({
        PORT: String(port),
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        SWITCHBOARD_CONFIG: configFile({
          defaultModel: 'mock/m',
          providers: { mock: { type: 'openai', baseUrl: `${held.upstream.url}/v1`, models: ['m'] } },
        }),
        SWITCHBOARD_DRAIN_MS: '500',
      }),
    );
    const agent = new Agent({ keepAlive: true });
    try {
      await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200), START_ATTEMPTS);
      // An idle kept-alive connection, as a load generator leaves behind.
      await new Promise<void>((resolve, reject) =>
        request(`http://127.0.0.1:${port}/health`, { agent }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end(),
      );
      const pending = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/m', messages: [{ role: 'user', content: 'never answered' }] }),
      }).catch(() => 'cut');
      await held.arrived();
      api.child.kill('SIGINT');
      expect(await api.exitsWithin(500 + MARGIN_MS)).toBe(0);
      expect(await pending).toBe('cut');
    } finally {
      agent.destroy();
      held.release();
      await held.upstream.close();
    }
  });
});

describe('the worker process on SIGTERM', TEST_TIMEOUT, () => {
  let held: Awaited<ReturnType<typeof holdingUpstream>>;
  let receiver: LocalServer;

  beforeAll(async () => {
    held = await holdingUpstream();
    receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  });
  afterAll(async () => {
    held?.release();
    await held?.upstream.close();
    await receiver?.close();
  });

  const config = () => ({
    defaultModel: 'mock/m',
    providers: { mock: { type: 'openai', baseUrl: `${held.upstream.url}/v1`, models: ['m'] } },
    hooks: { ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in` } },
    worker: { shutdownGraceMs: GRACE_MS, attempts: 3, backoffMs: 100, lockMs: 2_000 },
  });

  async function post(gateway: TestGateway, text: string): Promise<string> {
    const res = await fetch(`${gateway.url}/hooks/ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text, from: 'rosa' }),
    });
    expect(res.status).toBe(202);
    return (await res.json()).id;
  }

  const workerFor = (gateway: TestGateway) =>
    track(
      spawnLoggingWorkerProcess({
        REDIS_URL: gateway.settings.redisUrl,
        SWITCHBOARD_REDIS_PREFIX: gateway.prefix,
        SWITCHBOARD_CONFIG: gateway.settings.configPath ?? '',
        LOG_LEVEL: 'info',
      }),
    );

  it('releases a job still running after the grace back to the queue without spending an attempt; another worker finishes it', async () => {
    held.rearm();
    const gateway = await startGateway({ config: config() });
    try {
      const worker = workerFor(gateway);
      const id = await post(gateway, 'too slow');
      await held.arrived(); // the job is active, its model call held past the grace
      worker.child.kill('SIGTERM');
      expect(await worker.exitsWithin(GRACE_MS + MARGIN_MS)).toBe(0);
      const view = async () =>
        (await fetch(`${gateway.url}/hooks/ops/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
      expect(await view()).toMatchObject({ id, status: 'queued', attempts: 0 });

      held.release(); // the next worker's model call is answered
      const next = startTestWorker(gateway.settings);
      try {
        await eventually(async () =>
          expect(await view()).toMatchObject({ status: 'completed', reply: 'answer to too slow', attempts: 1 }),
        );
        expect(receiver.requests.filter((r) => (r.json as { id?: string }).id === id)).toHaveLength(1);
      } finally {
        await next.close();
      }
    } finally {
      await gateway.close();
    }
  });

  it('exits within the grace + 5 s when Redis goes away while a job is running', async () => {
    held.rearm();
    const redis = await startPrivateRedis();
    const gateway = await startGateway({ config: config(), env: { REDIS_URL: redis.url } });
    try {
      const worker = workerFor(gateway);
      await post(gateway, 'stranded');
      await held.arrived();
      await redis.kill();
      worker.child.kill('SIGTERM');
      expect(await worker.exitsWithin(GRACE_MS + MARGIN_MS)).toBe(0);
    } finally {
      await gateway.close();
      await redis.kill();
    }
  });
});

describe('both processes and a Redis outage', TEST_TIMEOUT, () => {
  let redis: PrivateRedis;
  const prefix = testPrefix();
  afterAll(async () => {
    await redis?.kill();
  });

  it('warn when Redis may evict keys, log the outage once and its end once, and survive it', async () => {
    redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    admin.disconnect();
    const env = { REDIS_URL: redis.url, SWITCHBOARD_REDIS_PREFIX: prefix, LOG_LEVEL: 'info' };
    const api = track(spawnApiProcess({ ...env, PORT: String(await freePort()) }));
    const worker = track(spawnLoggingWorkerProcess(env));
    const both = [api, worker];
    const lines = (proc: SpawnedProcess, message: string) => proc.logLines().filter((l) => l.message === message);
    const evicting = 'redis may evict keys: queued messages can be lost';
    for (const proc of both) await proc.waitForOutput(evicting);
    for (const proc of both) {
      expect(lines(proc, evicting)).toEqual([expect.objectContaining({ level: 'warn', maxmemory_policy: 'allkeys-lru' })]);
    }

    await redis.kill();
    for (const proc of both) await proc.waitForOutput('redis unavailable');
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // clients retry every 0.2–2 s meanwhile
    for (const proc of both) {
      expect(lines(proc, 'redis unavailable')).toHaveLength(1);
      expect(proc.logLines().filter((l) => l.level === 'error' || l.message === 'worker error')).toEqual([]);
    }

    await redis.start();
    for (const proc of both) await proc.waitForOutput('redis is back');
    for (const proc of both) {
      expect(lines(proc, 'redis is back')).toEqual([
        expect.objectContaining({ level: 'info', down_seconds: expect.any(Number) }),
      ]);
      expect(proc.child.exitCode).toBeNull();
      proc.child.kill('SIGTERM');
    }
    for (const proc of both) expect(await proc.exitsWithin(MARGIN_MS + 30_000)).toBe(0);
    await deleteKeys(prefix, redis.url);
  });
});
