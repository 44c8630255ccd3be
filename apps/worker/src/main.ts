import { loadSettingsOrExit } from '@switchboard/config';
import { closeWorkerDeps, createWorkerDeps } from './deps.js';
import { startWorker } from './worker.js';

/** What shutdown may take beyond the grace period (releasing jobs, closing connections) before the process exits anyway. */
const EXIT_MARGIN_MS = 5_000;

/**
 * `npm run start:worker`: consume the inbound queue. SIGINT/SIGTERM: active jobs get
 * `worker.shutdownGraceMs` to finish, then go back to the queue; the process exits within that
 * plus five seconds, whatever Redis does.
 */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit(process.env);
  const deps = createWorkerDeps(settings);
  const running = startWorker(deps);
  const { concurrency, shutdownGraceMs } = settings.config.worker;
  deps.logger.info('worker started', { worker_id: running.heartbeat.id, concurrency });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('worker stopping: finishing active jobs', { signal, grace_ms: shutdownGraceMs });
    setTimeout(() => {
      deps.logger.warn('worker shutdown took too long: exiting');
      process.exit(1);
    }, shutdownGraceMs + EXIT_MARGIN_MS).unref();
    await running.close(shutdownGraceMs);
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
