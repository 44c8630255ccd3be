import { INBOUND_QUEUE, retryBackoff } from '@switchboard/hub';
import { Worker } from 'bullmq';
import type { WorkerDeps } from './deps.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { createProcessor } from './processor.js';

export interface RunningWorker {
  worker: Worker;
  heartbeat: Heartbeat;
  /**
   * Takes no new jobs and lets the active ones finish for up to `graceMs`; then cancels them (a
   * model call is aborted, delivery stops between pieces) and they go back to the queue without
   * spending an attempt. Stops the heartbeat last.
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts consuming the inbound queue with the configured concurrency and writes heartbeats. */
export function startWorker(deps: WorkerDeps): RunningWorker {
  const { concurrency, lockMs, backoffMs, shutdownGraceMs } = deps.settings.config.worker;
  const worker = new Worker(INBOUND_QUEUE, createProcessor(deps), {
    connection: deps.redis,
    prefix: deps.hub.keys.bullPrefix,
    concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: 2,
    settings: { backoffStrategy: retryBackoff(backoffMs) },
  });
  worker.on('failed', (job, err) => {
    if (!job) return;
    deps.logger.warn('job attempt failed', {
      job_id: job.id,
      hook: (job.data as { hook?: unknown }).hook,
      attempt: job.attemptsMade,
      final: job.finishedOn !== undefined,
      error: err.message,
    });
  });
  worker.on('completed', (job) =>
    deps.logger.info('job completed', { job_id: job.id, hook: (job.data as { hook?: unknown }).hook }),
  );
  worker.on('error', (err) => deps.logger.warn('worker error', { error: err.message }));
  const heartbeat = startHeartbeat(deps.workers, concurrency);
  return {
    worker,
    heartbeat,
    async close(graceMs = shutdownGraceMs) {
      const closed = worker.close();
      const cancel = setTimeout(() => worker.cancelAllJobs('shutting down'), graceMs);
      await closed;
      clearTimeout(cancel);
      await heartbeat.stop();
    },
  };
}
