import { type DeliveryEvent, deliveryEventId } from '@switchboard/protocol';
import { Queue } from 'bullmq';
import type { RedisClient } from './commands/index.js';
import type { HubKeys } from './keys.js';

/** The queue of delivery-outcome events, apart from the inbound queue so a slow receiver never holds a reply up. */
export const EVENTS_QUEUE = 'events';

/** Attempts per event, the first one included: with the back-off below, about 17 minutes of retries. */
export const EVENT_ATTEMPTS = 10;
const EVENT_BACKOFF_MS = 1_000;

/** Queues delivery events for the worker's event sender (its own BullMQ queue, retried with back-off). */
export class DeliveryEvents {
  readonly queue: Queue;
  /** BullMQ's `prefix` of the queue, for the worker that sends the events. */
  readonly prefix: string;

  constructor(
    connection: RedisClient,
    keys: HubKeys,
    private readonly retentionSeconds: number,
  ) {
    this.prefix = keys.bullPrefix;
    this.queue = new Queue(EVENTS_QUEUE, { connection, prefix: this.prefix });
    this.queue.on('error', () => {});
  }

  /** Queued once per job and outcome: a job that re-runs after a crash queues no second event. */
  async add(event: DeliveryEvent): Promise<void> {
    await this.queue.add(event.type, event, {
      jobId: deliveryEventId(event),
      attempts: EVENT_ATTEMPTS,
      backoff: { type: 'exponential', delay: EVENT_BACKOFF_MS },
      removeOnComplete: { age: this.retentionSeconds },
      removeOnFail: { age: this.retentionSeconds * 7 },
    });
  }

  close(): Promise<void> {
    return this.queue.close().catch(() => {});
  }
}
