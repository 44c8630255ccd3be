import { DeliveryClient, type EventsDestination, sendDeliveryEvent } from '@switchboard/channels';
import { EVENTS_QUEUE } from '@switchboard/hub';
import { type DeliveryEvent, deliveryEventSchema, scrubSecrets } from '@switchboard/protocol';
import { settlesWithin } from '@switchboard/state';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { WorkerDeps } from './deps.js';
import type { MessageJob } from './message-job.js';

/** How long queuing an event may hold up the end of a job (Redis away): then it is dropped, with a warning. */
const QUEUE_EVENT_MS = 1_000;
const SENDER_CONCURRENCY = 8;

/** Where a hook's delivery events go: its own `events`, else the global one, else nowhere. */
function destinationOf(deps: WorkerDeps, hook: string): EventsDestination | undefined {
  return deps.hooks.get(hook)?.config.events ?? deps.settings.config.events;
}

type Outcome = { delivered: true } | { delivered: false; error: string };

/**
 * Queues `message.delivered` or `message.failed` once a message's outcome is final, when its hook
 * has an events destination. It never fails or holds up the reply: the reply is already out (or
 * failed for good), and a Redis that does not answer within a moment costs the event, not the job.
 * Null at once (nothing to wait for) when the hook has no destination.
 */
export function reportOutcome(deps: WorkerDeps, message: MessageJob, outcome: Outcome): Promise<void> | null {
  return destinationOf(deps, message.hook.name) ? queueOutcome(deps, message, outcome) : null;
}

async function queueOutcome(deps: WorkerDeps, message: MessageJob, outcome: Outcome): Promise<void> {
  const via = message.queued.message.deliverVia;
  const event: DeliveryEvent = {
    type: outcome.delivered ? 'message.delivered' : 'message.failed',
    timestamp: new Date().toISOString(),
    data: {
      job_id: message.jobId,
      hook: message.hook.name,
      target: via ? { hook: via.hook, ...via.target } : { hook: message.hook.name, ...message.queued.message.replyTo },
      attempts: message.job.attemptsMade + 1,
      ...(outcome.delivered ? {} : { error: scrubSecrets(outcome.error, deps.settings.secrets) }),
    },
  };
  const queued = deps.hub.events.add(event).catch((err: Error) => {
    deps.logger.warn('delivery event not queued', { job_id: message.jobId, type: event.type, error: err.message });
  });
  if (!(await settlesWithin(queued, QUEUE_EVENT_MS))) {
    deps.logger.warn('delivery event not queued: Redis is slow to answer', { job_id: message.jobId, type: event.type });
  }
}

/**
 * Consumes the events queue: each event POSTed, signed, to its hook's destination; a failure is
 * retried with the queue's back-off. Its own BullMQ worker, so a slow receiver never takes a
 * slot of the inbound one.
 */
export function startEventSender(deps: WorkerDeps): { close(): Promise<void> } {
  // Without a destination anywhere there is nothing to send: no worker, no blocking connection.
  const { config } = deps.settings;
  if (!config.events && !Object.values(config.hooks).some((hook) => hook.events)) return { close: async () => {} };
  const http = new DeliveryClient();
  const worker = new Worker(
    EVENTS_QUEUE,
    async (job: Job) => {
      const event = deliveryEventSchema.safeParse(job.data);
      if (!event.success) throw new UnrecoverableError('The job data is not a delivery event.');
      const destination = destinationOf(deps, event.data.data.hook);
      // Events turned off since it was queued.
      if (!destination) return;
      await sendDeliveryEvent(http, destination, event.data);
    },
    { connection: deps.redis, prefix: deps.hubs.events.prefix, concurrency: SENDER_CONCURRENCY },
  );
  worker.on('failed', (job, err) => {
    if (!job) return;
    deps.logger.warn('delivery event attempt failed', { event_id: job.id, attempt: job.attemptsMade, error: err.message });
  });
  worker.on('error', (err) => {
    deps.redisWatch.report(err, (e) => deps.logger.warn('event sender error', { error: e.message }));
  });
  return {
    async close() {
      await settlesWithin(worker.close(), 2_000);
      await http.close();
    },
  };
}
