import { deleteKeys, eventually, freePort, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { createRawClient } from './test-support/raw-client.js';
import { type SpawnedProcess, spawnApiProcess } from './test-support/spawn-process.js';

const redisUrl = testRedisUrl();
const LIMITED = ['key-limited-0123456789', 'key-limited-9876543210'];
const WARM = 'key-warm-0123456789';
const OPERATOR = 'key-operator-0123456789';

/** One request on a connection of its own (`Connection: close`), so node:cluster may hand it to either process. */
async function send(
  port: number,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; limited: boolean }> {
  const client = createRawClient(`http://127.0.0.1:${port}`);
  try {
    const headers: Record<string, string> = { ...extra, connection: 'close', authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const answer = await client.send({ method, path, headers, ...(payload ? { body: payload } : {}) });
    // X-RateLimit-Limit: the limiter decided from Redis (it lets a request through without it when Redis fails).
    return { status: answer.status, json: JSON.parse(answer.text), limited: 'x-ratelimit-limit' in answer.headers };
  } finally {
    client.close();
  }
}

const chat = (content: string) => ({ model: 'local/echo', messages: [{ role: 'user', content }] });

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
          ...LIMITED.map((key, i) => ({ key, requestsPerMinute: 6, name: `limited-${i}` })),
          { key: WARM, requestsPerMinute: 10_000, name: 'warm' },
          { key: OPERATOR, name: 'operator' },
        ],
      }),
    });
    await api.waitForOutput('api processes listening');
    // Listening comes before a process's Redis connection is up, and until then its limiter lets
    // requests through (seen under load: 12 of 12 answered 200). Wait until both processes have
    // decided a request from Redis, each by its pid in the request's log line.
    const deciding = new Set<unknown>();
    await eventually(
      async () => {
        const id = `warm-${deciding.size}-${Date.now()}`;
        const { limited } = await send(port, 'POST', '/v1/chat/completions', WARM, chat('warm'), { 'x-request-id': id });
        const line = await eventually(() => {
          const found = api.logLines().find((l) => l.message === 'request' && l.request_id === id);
          expect(found).toBeDefined();
          return found!;
        });
        if (limited) deciding.add(line.pid);
        expect(deciding.size).toBe(2);
      },
      200,
      50,
    );
  }, 60_000);

  afterAll(async () => {
    if (api.child.exitCode === null) api.child.kill('SIGKILL');
    await deleteKeys(prefix);
  });

  it('keeps one rate limit for a client across both processes', async () => {
    // Windows are fixed minutes: a burst that crosses a minute's edge draws on two budgets. Such a
    // burst is sent again under the second key, which then starts well inside a minute.
    for (const key of LIMITED) {
      const window = Math.floor(Date.now() / 60_000);
      const statuses: number[] = [];
      const burst = `burst-${LIMITED.indexOf(key)}`;
      for (let i = 0; i < 12; i++) {
        const headers = { 'x-request-id': `${burst}-${i}` };
        statuses.push((await send(port, 'POST', '/v1/chat/completions', key, chat(`hello ${i}`), headers)).status);
      }
      if (Math.floor(Date.now() / 60_000) !== window && key !== LIMITED.at(-1)) continue;
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.filter((s) => s === 429)).toHaveLength(6);
      // Both processes took part in the burst.
      await eventually(() => {
        const lines = api.logLines().filter((l) => l.message === 'request' && String(l.request_id).startsWith(`${burst}-`));
        expect(lines).toHaveLength(12);
        expect(new Set(lines.map((l) => l.pid)).size).toBe(2);
      });
      break;
    }
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
