import { deleteKeys, eventually, freePort, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { createRawClient } from './test-support/raw-client.js';
import { type SpawnedProcess, spawnApiProcess } from './test-support/spawn-process.js';

const redisUrl = testRedisUrl();
const LIMITED = 'key-limited-0123456789';
const OPERATOR = 'key-operator-0123456789';

/** One request on a connection of its own (`Connection: close`), so node:cluster may hand it to either process. */
async function send(
  port: number,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const client = createRawClient(`http://127.0.0.1:${port}`);
  try {
    const headers: Record<string, string> = { connection: 'close', authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const { status, text } = await client.send({ method, path, headers, ...(payload ? { body: payload } : {}) });
    return { status, json: JSON.parse(text) };
  } finally {
    client.close();
  }
}

/** The pids of the API processes that logged a request line for `path`. */
const servedBy = (api: SpawnedProcess, path: string) =>
  new Set(
    api
      .logLines()
      .filter((line) => line.message === 'request' && line.path === path)
      .map((line) => line.pid),
  );

describe('API_PROCESSES=2: two API processes share one port (node:cluster)', () => {
  const prefix = testPrefix();
  let api: SpawnedProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    api = spawnApiProcess({
      API_PROCESSES: '2',
      PORT: String(port),
      REDIS_URL: redisUrl,
      SWITCHBOARD_REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
      SWITCHBOARD_CONFIG: configFile({
        apiKeys: [
          { key: LIMITED, requestsPerMinute: 6, name: 'limited' },
          { key: OPERATOR, name: 'operator' },
        ],
      }),
    });
    await api.waitForOutput('api processes listening');
  }, 60_000);

  afterAll(async () => {
    if (api.child.exitCode === null) api.child.kill('SIGKILL');
    await deleteKeys(prefix);
  });

  it('keeps one rate limit for a client across both processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { status } = await send(port, 'POST', '/v1/chat/completions', LIMITED, {
        model: 'local/echo',
        messages: [{ role: 'user', content: `hello ${i}` }],
      });
      statuses.push(status);
    }
    expect(servedBy(api, '/v1/chat/completions').size).toBe(2);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });

  it('reports the same /status from both processes', async () => {
    // Each process writes its session touches once a second: ask until both have written theirs.
    await eventually(
      async () => {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push((await send(port, 'GET', '/status', OPERATOR)).json);
        const shared = answers.map(({ active_sessions, queue, channels }) => ({ active_sessions, queue, channels }));
        expect(shared[0]?.active_sessions).toEqual(expect.any(Number));
        for (const answer of shared) expect(answer).toEqual(shared[0]);
      },
      20,
      250,
    );
    expect(servedBy(api, '/status').size).toBe(2);
  });

  it('replaces an API process that dies, and keeps serving', async () => {
    const before = api.logLines().filter((line) => line.message === 'api listening');
    const victim = before[0]!.pid as number;
    process.kill(victim, 'SIGKILL');
    await api.waitForOutput('api process exited unexpectedly: starting another');
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (api.logLines().filter((line) => line.message === 'api listening').length > before.length) {
          clearInterval(check);
          resolve();
        }
      }, 50);
    });
    const { status } = await send(port, 'GET', '/health', OPERATOR);
    expect(status).toBe(200);
  });

  it('stops every process on SIGTERM and exits 0', async () => {
    const pids = api
      .logLines()
      .filter((line) => line.message === 'api listening')
      .map((line) => line.pid as number);
    api.child.kill('SIGTERM');
    expect(await api.exitsWithin(30_000)).toBe(0);
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});

describe('API_PROCESSES=2 when the port is taken', () => {
  it('says so and exits non-zero', async () => {
    const port = await freePort();
    const prefix = testPrefix();
    const first = spawnApiProcess({
      PORT: String(port),
      REDIS_URL: redisUrl,
      SWITCHBOARD_REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
    });
    try {
      await first.waitForOutput('api listening');
      const second = spawnApiProcess({
        API_PROCESSES: '2',
        PORT: String(port),
        REDIS_URL: redisUrl,
        SWITCHBOARD_REDIS_PREFIX: prefix,
      });
      expect(await second.exitsWithin(30_000)).toBe(1);
      expect(second.output.join('\n')).toContain('the port is in use');
    } finally {
      first.child.kill('SIGKILL');
      await deleteKeys(prefix);
    }
  }, 60_000);
});
