import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stateKeys, WorkerRegistry } from '@switchboard/state';
import { deleteKeys, freePort, testPrefix, testRedisUrl } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const prefix = testPrefix();
const redis = new Redis(testRedisUrl());
const workers = new WorkerRegistry(redis, stateKeys(prefix));

const ADMIN_KEY = 'worker-admin-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'switchboard-worker-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  redis.disconnect();
  await deleteKeys(prefix);
});

async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition never held');
}

describe('the worker process', () => {
  let child: ChildProcess;

  let metricsUrl: string;

  it('starts, heartbeats into Redis and is listed as a worker', async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ worker: { metricsPort: port } }));
    child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        REDIS_URL: testRedisUrl(),
        SWITCHBOARD_REDIS_PREFIX: prefix,
        SWITCHBOARD_CONFIG: config,
        SWITCHBOARD_ADMIN_KEYS: ADMIN_KEY,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const listed = await until(async () => (await workers.list()).find((w) => w.pid === child.pid));
    expect(listed).toMatchObject({ pid: child.pid, concurrency: expect.any(Number) });
    expect(Date.parse(listed.last_heartbeat)).not.toBeNaN();
  });

  it('serves its own metrics on worker.metricsPort, behind the admin key', async () => {
    // The server listens just after the worker starts: wait for it.
    const refused = await until(() => fetch(metricsUrl).catch(() => undefined));
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('invalid_admin_key');
    const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE switchboard_job_duration_seconds histogram');
    expect(text).toContain('# TYPE switchboard_delivery_attempts_total counter');
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('exits 0 on SIGTERM and leaves the worker list', async () => {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect((await workers.list()).find((w) => w.pid === child.pid)).toBeUndefined();
  });
});
