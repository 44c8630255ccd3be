import { createHash, randomUUID } from 'node:crypto';
import { conversationKey, HOOK_MESSAGE_VERSION, type InboundMessage, type QueuedMessage } from '@switchboard/protocol';
import type { HubShards } from './hub.js';
import { retryJobOptions } from './retry-policy.js';

export interface Accepted {
  jobId: string;
  /** True when the platform sent this message before: nothing new was queued. */
  duplicate: boolean;
  /** False when `replicaAcks` replicas did not confirm the job in time (it is queued on the master all the same). */
  replicated: boolean;
}

/**
 * Queues a verified inbound message durably; resolves only once BullMQ has written the job, so a
 * platform is told "accepted" only for what Redis holds. A message repeated by the platform (same
 * dedupe key) resolves to the first one's job id and queues nothing — unless that job never made
 * it into the queue, when it is queued now.
 */
export async function acceptMessage(
  hubs: HubShards,
  hook: string,
  message: InboundMessage,
  now = Date.now(),
  /** The queuing span's `traceparent` (tracing on), carried in the job. */
  trace?: string,
): Promise<Accepted> {
  const conversation = conversationKey(hook, message.conversation);
  // The conversation's shard holds its line, memory and jobs; the id names the shard.
  const hub = hubs.forConversation(conversation);
  const jobId = hub.jobId(
    message.dedupeKey ? `${hook}-${createHash('sha256').update(message.dedupeKey).digest('hex').slice(0, 32)}` : randomUUID(),
  );
  const { outcome, parkMs } = await hub.order.enqueue(conversation, jobId, message.dedupeKey !== null);
  if (outcome === 'duplicate') return { jobId, duplicate: true, replicated: true };
  const waits = parkMs > 0;

  const data: QueuedMessage = { v: HOOK_MESSAGE_VERSION, hook, message, receivedAt: now, waits, ...(trace ? { trace } : {}) };
  await hub.queue.add('message', data, {
    jobId,
    ...retryJobOptions(hub.options),
    ...(waits ? { delay: parkMs } : {}),
    // Bounded by age and by count (per shard): Redis memory levels off however busy the hub is.
    ...hub.retention.jobOptions(),
  });
  // Parked behind a message that may have finished while this one was being added.
  if (waits) await hub.order.wakeIfFirst(conversation, jobId);
  return { jobId, duplicate: false, replicated: await hub.replicated() };
}
