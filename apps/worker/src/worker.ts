import { type Hub, INBOUND_QUEUE, retryBackoff } from '@switchboard/hub';
import { settlesWithin } from '@switchboard/state';
import { type Job, Worker } from 'bullmq';
import { startEventSender } from './delivery-events.js';
import type { WorkerDeps } from './deps.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { measured } from './job-metrics.js';
import { traced } from './job-tracing.js';
import { createProcessor } from './processor.js';

/** The abort reason of a run whose job lock was found gone. */
const LOCK_LOST = 'job lock lost';

/** After the grace period, how long cancelled jobs get to go back to the queue before the connection is dropped. */
const RELEASE_MS = 2_000;

export interface RunningWorker {
  /** One BullMQ worker per shard this process consumes (`worker.shards`, else all). */
  workers: Worker[];
  heartbeat: Heartbeat;
  /**
   * Takes no new jobs and lets the active ones finish for up to `graceMs`; then cancels them (a
   * model call is aborted, delivery stops between pieces) and they go back to the queue without
   * spending an attempt. Bounded whatever Redis does: when Redis does not answer, BullMQ's
   * commands would wait forever, so once no job is running (or the grace and a moment for the
   * releases are over) the connection is dropped and what waited on it fails. Stops the
   * heartbeat last. Resolves within `graceMs` + about 3 s.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts consuming the inbound queue of every shard it serves (`worker.shards`, else all), the
 * configured concurrency spread over them (at least one job at a time each); writes heartbeats,
 * checks channels.
 */
export function startWorker(deps: WorkerDeps): RunningWorker {
  const { concurrency, shutdownGraceMs } = deps.settings.config.worker;
  const shards = consumedShards(deps);
  // The concurrency dealt out over the shards (the first ones take the remainder), at least one each.
  const perShard = shards.map((_, i) =>
    Math.max(1, Math.floor(concurrency / shards.length) + (i < concurrency % shards.length ? 1 : 0)),
  );
  let running = 0;
  const workers = shards.map((hub, i) =>
    startShardWorker({ ...deps, hub }, perShard[i]!, {
      started: () => running++,
      ended: () => running--,
    }),
  );
  const closeAll = () => Promise.all(workers.map((worker) => worker.close()));
  const cancelAll = () => {
    for (const worker of workers) worker.cancelAllJobs('shutting down');
  };
  const events = startEventSender(deps);
  // What it really runs at once: with more shards than `concurrency`, one job each.
  const heartbeat = startHeartbeat(
    deps.workers,
    perShard.reduce((sum, n) => sum + n, 0),
  );
  deps.channelChecks.start();
  return {
    workers,
    heartbeat,
    async close(graceMs = shutdownGraceMs) {
      const closed = closeAll();
      const cancel = setTimeout(cancelAll, graceMs);
      const giveUpAt = Date.now() + graceMs + RELEASE_MS;
      const redisAway = () => deps.redis.status !== 'ready';
      while (!(await settlesWithin(closed, 100))) {
        if (Date.now() < giveUpAt && !(redisAway() && running === 0)) continue;
        deps.logger.warn('worker shutdown: Redis does not answer; dropping the connection', { running_jobs: running });
        deps.redis.disconnect();
        await settlesWithin(closed, 1_000);
        break;
      }
      clearTimeout(cancel);
      await events.close();
      await settlesWithin(heartbeat.stop(), 1_000);
    },
  };
}

/** The shards this process consumes: `worker.shards`, else every one. */
function consumedShards(deps: WorkerDeps): Hub[] {
  const only = deps.settings.config.worker.shards;
  const all = deps.hubs.shards;
  return only ? all.filter((hub) => only.includes(hub.shard)) : [...all];
}

/** One shard's BullMQ worker; its processor's deps name that shard's pipeline (`deps.hub`). */
function startShardWorker(deps: WorkerDeps, concurrency: number, count: { started(): void; ended(): void }): Worker {
  const { lockMs, backoffMs } = deps.settings.config.worker;
  const process = deps.tracing ? traced(deps.tracing, createProcessor(deps)) : createProcessor(deps);
  const processMessage = deps.metrics ? measured(deps.metrics, process) : process;
  const counted = async (job: Job, token: string | undefined, signal: AbortSignal | undefined) => {
    count.started();
    try {
      return await processMessage(job, token, signal);
    } finally {
      count.ended();
    }
  };
  const worker = new Worker(INBOUND_QUEUE, counted, {
    connection: deps.redis,
    prefix: deps.hub.keys.bullPrefix,
    concurrency,
    // Recovery from a dead worker: its locks run out within lockMs of its death (BullMQ renews
    // them every lockMs / 4), and a stall check (one script, run by one worker per interval, the
    // others find its marker and return) moves the jobs whose lock is gone back to the queue. A
    // job is taken when it was marked at one check and still has no lock at a later one, so
    // checking every lockMs / 4 bounds kill → taken again at 1.25 × lockMs (6.25 s by default,
    // room for the answer within the 10 s we promise); lockMs and checks of 30 s made that 60 s.
    // A healthy job is never taken: a check moves only a job whose lock is gone. Whole ms: the
    // check's marker is a PX.
    lockDuration: lockMs,
    stalledInterval: Math.round(lockMs / 4),
    // A stall is not a failure: the job runs again (its reply is recorded once, its delivered
    // pieces are skipped). A short lock makes a false stall (an event loop blocked for longer than
    // the lock, a Redis outage longer than it) more likely, so one or two never fail a job; only
    // the third of the same job does, which then is itself what kills or blocks the workers.
    maxStalledCount: 2,
    settings: { backoffStrategy: retryBackoff(backoffMs) },
  });
  // A lock found gone when renewed (Redis away, or this event loop blocked, for longer than the
  // lock) means a stall check has taken, or will take, the job for another run: this run stops
  // (its model call is cancelled, delivery stops between pieces) rather than post a second reply.
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const jobId of jobIds) {
      if (worker.cancelJob(jobId, LOCK_LOST))
        deps.logger.warn('job lock lost: this run stops, another takes the job', { job_id: jobId });
    }
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
  // Completed jobs are trimmed to worker.keepJobs every so many completions (hub job-retention.ts).
  deps.hub.retention.follow(worker, (err) =>
    deps.redisWatch.report(err, (e) => deps.logger.warn('completed jobs not trimmed', { error: e.message })),
  );
  // While Redis is away every poll fails: those are the outage's, logged once (not one line each).
  worker.on('error', (err) => {
    deps.redisWatch.report(err, (e) => deps.logger.warn('worker error', { error: e.message }));
  });
  return worker;
}
