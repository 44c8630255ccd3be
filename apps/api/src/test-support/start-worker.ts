import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Settings } from '@switchboard/config';
import { createLogger } from '@switchboard/logger';
import { lineCollector } from '@switchboard/testing';
import { closeWorkerDeps, createWorkerDeps, startWorker, type WorkerDeps } from '@switchboard/worker';

export interface TestWorker {
  logs: string[];
  deps: WorkerDeps;
  close(): Promise<void>;
}

/** The real worker, in this process, on the same settings (and so the same Redis prefix) as a gateway. */
export function startTestWorker(settings: Settings): TestWorker {
  const { lines: logs, stream } = lineCollector();
  const deps = createWorkerDeps(settings, { logger: createLogger({ level: 'debug', secrets: settings.secrets, stream }) });
  const running = startWorker(deps);
  return {
    logs,
    deps,
    async close() {
      await running.close();
      await closeWorkerDeps(deps);
    },
  };
}

/** The real worker as its own process (`apps/worker/dist/main.js`), so a test can SIGKILL it. */
export function spawnWorkerProcess(env: Record<string, string>) {
  const main = createRequire(import.meta.url)
    .resolve('@switchboard/worker')
    .replace(/index\.js$/, 'main.js');
  return spawn(process.execPath, [main], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: 'ignore' });
}
