import { isLastAttempt } from '@switchboard/hub';
import type { Metrics } from '@switchboard/metrics';
import { DelayedError, type Job, UnrecoverableError, WaitingError } from 'bullmq';

type Process<T> = (job: Job, token: string | undefined, signal: AbortSignal | undefined) => Promise<T>;

/**
 * Counts each run of a job where it happens: its duration by outcome (`completed`; `parked`
 * behind an earlier message of its conversation; `released` on shutdown; `retry`; `failed` for
 * good), and the hook messages completed or failed for good.
 */
export function measured<T>(metrics: Metrics, process: Process<T>): Process<T> {
  const { jobDuration, hookCompleted, hookFailed } = metrics;
  return async (job, token, signal) => {
    const started = performance.now();
    const hook = String((job.data as { hook?: unknown }).hook ?? 'unknown');
    let outcome = 'completed';
    try {
      const result = await process(job, token, signal);
      hookCompleted.inc({ hook });
      return result;
    } catch (err) {
      if (err instanceof DelayedError) outcome = 'parked';
      else if (err instanceof WaitingError) outcome = 'released';
      else if (err instanceof UnrecoverableError || isLastAttempt(job)) outcome = 'failed';
      else outcome = 'retry';
      if (outcome === 'failed') hookFailed.inc({ hook });
      throw err;
    } finally {
      jobDuration.observe({ hook, outcome }, (performance.now() - started) / 1000);
    }
  };
}
