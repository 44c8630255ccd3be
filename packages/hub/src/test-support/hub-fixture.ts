import type { InboundMessage } from '@switchboard/protocol';
import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { type Processor, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Hub, type HubOptions } from '../hub.js';
import { INBOUND_QUEUE } from '../queues.js';
import { retryBackoff } from '../retry-policy.js';

export interface HubFixture {
  hub: Hub;
  prefix: string;
  /** A BullMQ worker on the hub's queue; closed with the fixture. */
  startWorker(processor: Processor, options?: { concurrency?: number; lockMs?: number }): Worker;
  close(): Promise<void>;
}

/** A hub of its own (own key prefix) on the test Redis; `close()` removes every key it wrote. */
export function createHubFixture(options: Partial<HubOptions> = {}): HubFixture {
  const prefix = testPrefix();
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const hub = new Hub(redis, {
    prefix,
    attempts: 3,
    backoffMs: 20,
    orderRecheckMs: 60_000,
    memory: { maxMessages: 6, ttlSeconds: 3600 },
    ...options,
  });
  const workers: Worker[] = [];
  return {
    hub,
    prefix,
    startWorker(processor, { concurrency = 4, lockMs = 5_000 } = {}) {
      const worker = new Worker(INBOUND_QUEUE, processor, {
        connection: new Redis(testRedisUrl(), { maxRetriesPerRequest: null }),
        prefix: hub.keys.bullPrefix,
        concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        settings: { backoffStrategy: retryBackoff(hub.options.backoffMs) },
      });
      worker.on('error', () => {});
      hub.retention.follow(worker, () => {});
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close(true)));
      await hub.close();
      redis.disconnect();
      await deleteKeys(prefix);
    },
  };
}

/** A chat message from `conversation`'s one sender, without a dedupe key. */
export const chatMessage = (conversation: string, text: string): InboundMessage => ({
  action: 'chat',
  text,
  from: conversation,
  conversation,
  dedupeKey: null,
  replyTo: {},
});
