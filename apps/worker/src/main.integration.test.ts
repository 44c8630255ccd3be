import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { stateKeys, WorkerRegistry } from '@switchboard/state';
import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const prefix = testPrefix();
const redis = new Redis(testRedisUrl());
const workers = new WorkerRegistry(redis, stateKeys(prefix));

afterAll(async () => {
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

  it('starts, heartbeats into Redis and is listed as a worker', async () => {
    child = spawn(process.execPath, [main], {
      env: { ...process.env, REDIS_URL: testRedisUrl(), SWITCHBOARD_REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const listed = await until(async () => (await workers.list()).find((w) => w.pid === child.pid));
    expect(listed).toMatchObject({ pid: child.pid, concurrency: expect.any(Number) });
    expect(Date.parse(listed.last_heartbeat)).not.toBeNaN();
  });

  it('exits 0 on SIGTERM and leaves the worker list', async () => {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect((await workers.list()).find((w) => w.pid === child.pid)).toBeUndefined();
  });
});
