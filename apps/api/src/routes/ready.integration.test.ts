import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker } from '../test-support/start-worker.js';

const ready = async (gateway: TestGateway) => {
  const res = await fetch(`${gateway.url}/ready`);
  return { status: res.status, body: await res.json() };
};

describe('GET /ready', () => {
  let plain: TestGateway;
  let hooked: TestGateway;
  let redis: Redis;
  beforeAll(async () => {
    plain = await startGateway();
    hooked = await startGateway({
      config: { hooks: { support: { type: 'generic', token: 'hook-token-0123456789' } }, worker: { lockMs: 2000 } },
    });
    redis = new Redis(hooked.settings.redisUrl);
  });
  afterAll(async () => {
    redis?.disconnect();
    await plain?.close();
    await hooked?.close();
  });

  it('is ready when Redis answers and no hook needs a worker', async () => {
    expect(await ready(plain)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('says degraded, still 200, while hooks are configured and no worker ever beat', async () => {
    const { status, body } = await ready(hooked);
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'degraded', reason: expect.stringMatching(/^no worker heartbeat seen/) });
  });

  it('is ready once a worker beats, and degraded again when the last beat is older than three lock periods', async () => {
    const worker = startTestWorker(hooked.settings);
    try {
      await eventually(async () => expect(await ready(hooked)).toEqual({ status: 200, body: { status: 'ready' } }));
    } finally {
      await worker.close();
    }
    // Stopped cleanly, it left the list, but its last beat is recent: still ready.
    expect((await ready(hooked)).body.status).toBe('ready');
    // Three lock periods of 2 s are shorter than three heartbeats, so the window is 15 s: 20 s ago is too long.
    await redis.set(`${hooked.prefix}:workers:last-beat`, Date.now() - 20_000);
    const { status, body } = await ready(hooked);
    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.reason).toMatch(/^no worker heartbeat for 2\d s \(more than 3 lock periods, 15 s\)/);
  });
});
