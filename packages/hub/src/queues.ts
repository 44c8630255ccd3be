import { Queue } from 'bullmq';
import type { RedisClient } from './commands/index.js';
import type { HubKeys } from './keys.js';

/** The one queue of inbound channel messages. */
export const INBOUND_QUEUE = 'inbound';

export function createInboundQueue(connection: RedisClient, keys: HubKeys): Queue {
  const queue = new Queue(INBOUND_QUEUE, { connection, prefix: keys.bullPrefix });
  // Connection errors are the Redis client's to report (and callers see them as failed calls);
  // without a listener BullMQ's re-emitted 'error' would surface as an unhandled rejection.
  queue.on('error', () => {});
  return queue;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export async function queueCounts(queue: Queue): Promise<QueueCounts> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'paused');
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.paused ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    completed: counts.completed ?? 0,
  };
}

/** The counts of several queues (every shard's inbound queue) added up. */
export async function totalQueueCounts(queues: readonly Queue[]): Promise<QueueCounts> {
  const counts = await Promise.all(queues.map(queueCounts));
  return counts.reduce((sum, c) => ({
    waiting: sum.waiting + c.waiting,
    active: sum.active + c.active,
    delayed: sum.delayed + c.delayed,
    failed: sum.failed + c.failed,
    completed: sum.completed + c.completed,
  }));
}
