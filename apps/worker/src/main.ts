import { loadSettingsOrExit } from '@switchboard/config';
import { closeWorkerDeps, createWorkerDeps } from './deps.js';
import { startWorker } from './worker.js';

/** `npm run start:worker`: consume the inbound queue; SIGINT/SIGTERM finish active jobs, then exit 0. */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit(process.env);
  const deps = createWorkerDeps(settings);
  const running = startWorker(deps);
  deps.logger.info('worker started', { worker_id: running.heartbeat.id, concurrency: settings.config.worker.concurrency });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('worker stopping: finishing active jobs', { signal });
    await running.close();
    await closeWorkerDeps(deps);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error('switchboard: worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
