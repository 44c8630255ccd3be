import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSettings, type Settings } from '@switchboard/config';
import { createHub, type Hub } from '@switchboard/hub';
import { createLogger } from '@switchboard/logger';
import { deleteKeys, lineCollector, testPrefix, testRedisUrl } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { closeWorkerDeps, createWorkerDeps, type WorkerDeps } from '../deps.js';
import { type RunningWorker, startWorker } from '../worker.js';

export interface WorkerFixture {
  settings: Settings;
  /** The pipeline, as the API would use it, to queue messages and look at jobs. */
  hub: Hub;
  /** Starts a worker in this process; closed with the fixture unless closed before. */
  start(): { running: RunningWorker; deps: WorkerDeps; logs: string[] };
  /** Starts `apps/worker/dist/main.js` as its own process (so a test can SIGKILL it). */
  spawn(): ChildProcess;
  close(): Promise<void>;
}

const workerMain = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Settings from `config` under a key prefix of their own, on the test Redis. */
export function createWorkerFixture(config: Record<string, unknown>): WorkerFixture {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-worker-test-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const prefix = testPrefix();
  const env = { REDIS_URL: testRedisUrl(), SWITCHBOARD_CONFIG: configPath, SWITCHBOARD_REDIS_PREFIX: prefix };
  const settings = loadSettings({ ...env, LOG_LEVEL: 'debug' });
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const hub = createHub(redis, settings);
  const started: { running: RunningWorker; deps: WorkerDeps }[] = [];
  const children: ChildProcess[] = [];
  return {
    settings,
    hub,
    start() {
      const { lines: logs, stream } = lineCollector();
      const deps = createWorkerDeps(settings, { logger: createLogger({ level: 'debug', secrets: settings.secrets, stream }) });
      const running = startWorker(deps);
      started.push({ running, deps });
      return { running, deps, logs };
    },
    spawn() {
      const child = spawn(process.execPath, [workerMain], {
        env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      });
      children.push(child);
      return child;
    },
    async close() {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const { running, deps } of started) {
        await running.close(0).catch(() => {});
        await closeWorkerDeps(deps);
      }
      await hub.close();
      redis.disconnect();
      await deleteKeys(prefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
