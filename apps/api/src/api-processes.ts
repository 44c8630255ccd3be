import cluster, { type Worker } from 'node:cluster';
import type { Settings } from '@switchboard/config';
import type { Logger } from '@switchboard/logger';

/** What a stop may take beyond the API processes' own drain before they are killed. */
const EXIT_MARGIN_MS = 5_000;
/** A process that dies this soon after starting counts against the restart budget twice. */
const RESTARTS_PER_MINUTE_PER_PROCESS = 3;

/**
 * `API_PROCESSES` > 1: this process only supervises. It forks that many API processes (each the
 * whole API: its own deps, pools and Redis connections) that share the port through node:cluster,
 * which hands connections out round-robin. Everything they must agree on (rate limits, /status,
 * cooldowns, the cache) already lives in Redis.
 *
 * - It reports `listening` (to `npm start`, over IPC) once every process listens; a process that
 *   fails to start (port in use, bad config) stops the others and ends the supervisor with its code.
 * - One that dies later is replaced, at most 3 times a minute per process, else all stop (exit 1):
 *   a crash loop must be seen, not hidden.
 * - SIGINT/SIGTERM are passed to each process, which drains as a single API does; once all have
 *   exited the supervisor exits 0, or 1 after drain + 5 s (then they are killed). A second signal
 *   kills them at once.
 */
export function superviseApiProcesses(settings: Settings, logger: Logger, entry: string): void {
  const count = settings.apiProcesses;
  cluster.setupPrimary({ exec: entry, args: process.argv.slice(2) });
  const listening = new Set<number>();
  const restarts: number[] = [];
  let announced = false;
  let stopping: string | null = null;
  let exitCode = 0;

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type !== 'listening') return;
      listening.add(worker.id);
      if (announced || listening.size < count) return;
      announced = true;
      logger.info('api processes listening', { url: message.url, pid: process.pid, processes: count });
      if (process.send) {
        process.send({ type: 'listening', url: message.url });
        process.channel?.unref();
      }
    });
    return worker;
  };

  const living = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());

  const stop = (reason: string, code: number) => {
    if (stopping) {
      // A second signal: no more draining.
      for (const worker of living()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = reason;
    exitCode = code;
    logger.info('api processes stopping', { reason, processes: living().length, drain_ms: settings.drainMs });
    for (const worker of living()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      logger.warn('api processes took too long to stop: killing them');
      for (const worker of living()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, settings.drainMs + EXIT_MARGIN_MS).unref();
    if (living().length === 0) process.exit(code);
  };

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) {
      if (living().length === 0) {
        logger.info('api processes stopped');
        process.exit(exitCode);
      }
      return;
    }
    if (!announced) {
      // It said why on stderr (port in use, a configuration error): the others would say the same.
      stop('an API process failed to start', code || 1);
      return;
    }
    const now = Date.now();
    while (restarts.length && restarts[0]! < now - 60_000) restarts.shift();
    if (restarts.length >= count * RESTARTS_PER_MINUTE_PER_PROCESS) {
      logger.error('api processes keep dying: stopping', { pid: worker.process.pid, code, signal });
      stop('crash loop', 1);
      return;
    }
    restarts.push(now);
    logger.error('api process exited unexpectedly: starting another', { pid: worker.process.pid, code, signal });
    fork();
  });

  process.on('SIGINT', () => stop('SIGINT', 0));
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  for (let i = 0; i < count; i++) fork();
}
