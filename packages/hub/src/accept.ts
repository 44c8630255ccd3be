import { hash, randomUUID } from 'node:crypto';
import { conversationKey, HOOK_MESSAGE_VERSION, type InboundMessage, type QueuedMessage } from '@switchboard/protocol';
import type { Hub, HubShards } from './hub.js';
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
/**
 * The BullMQ options a hook message is queued with, wherever it is queued (accepted here, moved
 * by the worker's migrate): its id, the retry policy, parked (delayed) when `parkMs` > 0, and the
 * retention bound (age and count, per shard), so Redis memory levels off however busy the hub is.
 */
export function messageJobOptions(hub: Pick<Hub, 'options' | 'retention'>, jobId: string, parkMs: number) {
  return {
    jobId,
    ...retryJobOptions(hub.options),
    ...(parkMs > 0 ? { delay: parkMs } : {}),
    ...hub.retention.jobOptions(),
  };
}

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
  const jobId = hub.jobId(message.dedupeKey ? `${hook}-${hash('sha256', message.dedupeKey).slice(0, 32)}` : randomUUID());
  const { outcome, parkMs } = await hub.order.enqueue(conversation, jobId, message.dedupeKey !== null);
  if (outcome === 'duplicate') return { jobId, duplicate: true, replicated: true };
  const waits = parkMs > 0;

  const data: QueuedMessage = { v: HOOK_MESSAGE_VERSION, hook, message, receivedAt: now, waits, ...(trace ? { trace } : {}) };
  await hub.queue.add('message', data, messageJobOptions(hub, jobId, parkMs));
  // Parked behind a message that may have finished while this one was being added: woken if so.
  // The look waits for the add's reply: sent behind it on the same connection it could still run
  // first, since a command sent again (a script call meeting NOSCRIPT on a restarted Redis or a
  // promoted replica, a redirect during a failover) goes after it, and a wake-up would be lost
  // until the recheck (the cluster failover test took 61 s instead of 10).
  if (waits) await hub.order.wakeIfFirst(conversation, jobId);
  return { jobId, duplicate: false, replicated: await hub.replicated() };
}
