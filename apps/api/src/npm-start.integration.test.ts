import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  chunkBody,
  eventually,
  freePort,
  type LocalServer,
  openSse,
  type PrivateRedis,
  startOpenAIUpstream,
  startPrivateCluster,
  startPrivateRedis,
  startPrivateSentinel,
  testPrefix,
  writeSse,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { type SpawnedProcess, spawnNode } from './test-support/spawn-process.js';

/** `npm start` (scripts/start.mjs) as an operator uses it: signals, a second signal, a port in use, Redis gone. */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const startScript = `${root}scripts/start.mjs`;
/**
 * Installing and building are skipped (node_modules is there, the build is up to date). A bound on a hang, not on
 * speed: the processes stop well within it on a quiet machine, and starting the two apps took
 * 15–30 s of wall on this 2-core machine under other work (load 14–20).
 */
const BOUND_MS = 60_000;
/** Each test starts Switchboard (the API and the worker), then waits at most BOUND_MS for it to stop. */
const TEST_TIMEOUT = { timeout: 3 * BOUND_MS };
/** `eventually`'s attempts 25 ms apart that make BOUND_MS. */
const ATTEMPTS = BOUND_MS / 25;

let redis: PrivateRedis;
let upstream: LocalServer;
const started: SpawnedProcess[] = [];
const pids = new Set<number>();

beforeAll(async () => {
  redis = await startPrivateRedis();
  // A stream that sends one chunk and holds: the API cannot finish draining while it is open.
  upstream = await startOpenAIUpstream((_req, res) => {
    openSse(res);
    writeSse(res, chunkBody('m', { role: 'assistant', content: 'holding' }));
  });
});

afterEach(async () => {
  for (const proc of started.splice(0)) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  pids.clear();
  if (!redis.up) await redis.start();
});

afterAll(async () => {
  await redis?.kill();
  await upstream?.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A preload (NODE_OPTIONS) with which every Node process started under `env` appends its pid and
 * script to a file; `pidsOf` lists the pids of those that ran a script ending in `script`.
 */
function startRecorder() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pids-'));
  const log = join(dir, 'pids.jsonl');
  const preload = join(dir, 'record-pid.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, script: process.argv[1] }) + '\\n');\n`,
  );
  return {
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(preload).href}`.trim() },
    pidsOf(script: string): number[] {
      const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      return lines
        .map((line) => JSON.parse(line) as { pid: number; script?: string })
        .filter((entry) => entry.script?.endsWith(script))
        .map((entry) => entry.pid);
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Starts `npm start`'s script; resolves once it says Switchboard is up, with the API's and the worker's pids. */
async function startSwitchboard(env: Record<string, string> = {}) {
  const port = await freePort();
  const proc = spawnNode(startScript, {
    PORT: String(port),
    REDIS_URL: redis.url,
    SWITCHBOARD_REDIS_PREFIX: testPrefix(),
    LOG_LEVEL: 'info',
    ...env,
  });
  started.push(proc);
  return { proc, port, ...(await childPids(proc)) };
}

async function childPids(proc: SpawnedProcess) {
  await proc.waitForOutput('Switchboard is up');
  // The API says it is up as soon as it listens; the worker may log its start a moment later.
  const pidOf = async (message: string) => {
    await proc.waitForOutput(`"message":"${message}"`);
    const pid = proc.logLines().find((line) => line.message === message)?.pid;
    if (typeof pid !== 'number') throw new Error(`no pid in the '${message}' line`);
    pids.add(pid);
    return pid;
  };
  return { api: await pidOf('api listening'), worker: await pidOf('worker started') };
}

describe('npm start', TEST_TIMEOUT, () => {
  it('passes SIGTERM to the API and the worker and exits 0 once both have exited', async () => {
    const { proc, api, worker } = await startSwitchboard();
    proc.child.kill('SIGTERM');
    expect(await proc.exitsWithin(BOUND_MS)).toBe(0);
    expect([alive(api), alive(worker)]).toEqual([false, false]);
  });

  it('stops everything when npm itself is sent SIGTERM (npm does not pass it on)', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        REDIS_URL: redis.url,
        SWITCHBOARD_REDIS_PREFIX: testPrefix(),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => {
      output += chunk;
    });
    npm.stderr.resume();
    const exited = once(npm, 'exit');
    try {
      await eventually(() => expect(output).toContain('Switchboard is up'), ATTEMPTS, 25);
      const pidsIn = (message: string) =>
        [...output.matchAll(new RegExp(`"message":"${message}","pid":(\\d+)`, 'g'))].map((m) => Number(m[1]));
      // The API says it is up as soon as it listens; the worker may log its start a moment later.
      const started = () => [...pidsIn('api listening'), ...pidsIn('worker started')];
      await eventually(() => expect(started()).toHaveLength(2), ATTEMPTS, 25);
      const children = started();
      for (const pid of children) pids.add(pid);
      npm.kill('SIGTERM');
      await eventually(() => expect(children.filter(alive)).toEqual([]), ATTEMPTS, 25);
    } finally {
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      await exited;
    }
  });

  it('kills both at once on a second signal, while the API still drains a stream', async () => {
    const config = configFile({
      defaultModel: 'mock/m',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
    });
    const { proc, port, api, worker } = await startSwitchboard({ SWITCHBOARD_CONFIG: config, SWITCHBOARD_DRAIN_MS: '120000' });
    const controller = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/m', stream: true, messages: [{ role: 'user', content: 'hold' }] }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    try {
      proc.child.kill('SIGTERM');
      await proc.waitForOutput('api stopping'); // draining: without a second signal it would wait two minutes
      proc.child.kill('SIGTERM');
      expect(await proc.exitsWithin(BOUND_MS)).not.toBe(0);
      expect(proc.output.join('\n')).toContain('killing the API and the worker now');
      await eventually(() => expect([alive(api), alive(worker)]).toEqual([false, false]), ATTEMPTS, 25);
    } finally {
      controller.abort();
    }
  });

  it('stops on Ctrl-C (SIGINT) while Redis is unreachable', async () => {
    const { proc, api, worker } = await startSwitchboard();
    await redis.kill();
    await proc.waitForOutput('redis unavailable');
    proc.child.kill('SIGINT');
    expect(await proc.exitsWithin(BOUND_MS)).toBe(0);
    expect([alive(api), alive(worker)]).toEqual([false, false]);
  });

  it('says the port is in use and exits non-zero, stopping the worker, when the port is taken', async () => {
    const squatter = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    // The worker may be stopped before it logs anything, so every Node process the script starts
    // records its pid and script as it loads: the worker is known whether it got to log or not.
    const recorder = startRecorder();
    try {
      const proc = spawnNode(startScript, {
        PORT: String(port),
        REDIS_URL: redis.url,
        SWITCHBOARD_REDIS_PREFIX: testPrefix(),
        LOG_LEVEL: 'info',
        ...recorder.env,
      });
      started.push(proc);
      const code = await proc.exitsWithin(BOUND_MS);
      const output = proc.output.join('\n');
      expect(code).not.toBe(0);
      expect(output).toContain(`the API cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(output).not.toContain('Switchboard is up');
      const workers = recorder.pidsOf('apps/worker/dist/main.js');
      for (const pid of workers) pids.add(pid);
      expect(workers).toHaveLength(1);
      expect(workers.filter(alive)).toEqual([]);
    } finally {
      squatter.close();
      recorder.close();
    }
  });
  // docs/scaling.md "Redis Cluster and Sentinel": the two multi-host REDIS_URL forms. The check before the
  // start read them with `new URL()` and died with a TypeError before anything started.
  for (const [form, start] of [
    ['redis-cluster://host:port,…', async () => startPrivateCluster(3)],
    ['redis-sentinel://host:port/<master>', async () => startPrivateSentinel()],
  ] as const) {
    it(
      `starts on a ${form} REDIS_URL and reaches Redis through it`,
      async () => {
        const target = await start();
        try {
          // The first host listed does not answer: any one of them is enough, as for the apps.
          const url = target.url.replace('://', `://127.0.0.1:${await freePort()},`);
          const { proc, port, api, worker } = await startSwitchboard({ REDIS_URL: url });
          // Ready once the first connection is made (through the sentinel, it takes a lookup first).
          const ready = await eventually(
            async () => {
              const res = await fetch(`http://127.0.0.1:${port}/ready`);
              expect(res.status).toBe(200);
              return res.json();
            },
            100,
            100,
          );
          expect(ready).toEqual({ status: 'ready' });
          expect(proc.output.join('\n')).not.toContain('TypeError');
          proc.child.kill('SIGTERM');
          expect(await proc.exitsWithin(BOUND_MS)).toBe(0);
          expect([alive(api), alive(worker)]).toEqual([false, false]);
        } finally {
          await target.stop();
        }
      },
      4 * BOUND_MS,
    );
  }
});
