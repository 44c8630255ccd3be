import { bullPrefix, INBOUND_QUEUE } from '@switchboard/queue';
import { Worker } from 'bullmq';
import { retryBackoff } from './backoff.js';
import { wakeSuccessor } from './conversation-order.js';
import type { WorkerDeps } from './deps.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { createProcessor } from './processor.js';

export interface RunningWorker {
  worker: Worker;
  heartbeat: Heartbeat;
  /** Takes no new jobs, waits for the active ones to finish, then stops the heartbeat. */
  close(): Promise<void>;
}

/** Starts consuming the inbound queue with the configured concurrency and writes heartbeats. */
export function startWorker(deps: WorkerDeps): RunningWorker {
  const { concurrency, lockMs } = deps.settings.config.worker;
  const worker = new Worker(INBOUND_QUEUE, createProcessor(deps), {
    connection: deps.redis,
    prefix: bullPrefix(deps.settings.redisPrefix),
    concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: 2,
    settings: { backoffStrategy: retryBackoff(deps.settings.config.worker.backoffMs) },
  });
  const wake = (jobId: string | undefined) => {
    if (jobId) wakeSuccessor(deps.queue, deps.redis, deps.keys.successor(jobId)).catch(() => {});
  };
  worker.on('failed', (job, err) => {
    if (!job) return;
    deps.logger.warn('job attempt failed', {
      job_id: job.id,
      hook: job.data.hook,
      attempt: job.attemptsMade,
      error: err.message,
    });
    if (job.finishedOn) wake(job.id); // failed for good: the conversation moves on
  });
  worker.on('completed', (job) => {
    deps.logger.info('job completed', { job_id: job.id, hook: job.data.hook });
    wake(job.id);
  });
  worker.on('error', (err) => deps.logger.warn('worker error', { error: err.message }));
  const heartbeat = startHeartbeat(deps.workers, concurrency);
  return {
    worker,
    heartbeat,
    async close() {
      await worker.close();
      await heartbeat.stop();
    },
  };
}
