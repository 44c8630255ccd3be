import { queuedTraceparent } from '@switchboard/protocol';
import type { Tracing } from '@switchboard/tracing';
import type { Job } from 'bullmq';

type Process<T> = (job: Job, token: string | undefined, signal: AbortSignal | undefined) => Promise<T>;

/**
 * Each run of a job is a consumer span continuing the trace of the request that queued it (the
 * job's `trace`); the model call and deliveries made while it runs are its children.
 */
export function traced<T>(tracing: Tracing, process: Process<T>): Process<T> {
  return (job, token, signal) =>
    tracing.span(
      'process hook message',
      {
        kind: 'consumer',
        parent: queuedTraceparent(job.data),
        attributes: {
          'switchboard.hook': String((job.data as { hook?: unknown }).hook ?? 'unknown'),
          'messaging.message.id': job.id ?? '',
          'switchboard.attempt': job.attemptsStarted,
        },
      },
      () => process(job, token, signal),
    );
}
