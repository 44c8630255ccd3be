import type { Settings } from '@switchboard/config';
import type { Queue } from 'bullmq';
import { type HubRedis, type RedisClient, withHubCommands } from './commands/index.js';
import { DeliveryEvents } from './delivery-events.js';
import { Exchange, type MemoryOptions } from './exchange.js';
import { JobFeeds } from './job-feed.js';
import { type HubKeys, hubKeys } from './keys.js';
import { ConversationOrder } from './ordering.js';
import { createInboundQueue } from './queues.js';
import type { RetryPolicy } from './retry-policy.js';
import { ToolLedger } from './tool-ledger.js';

export interface HubOptions extends RetryPolicy {
  /** Every key lives under this prefix; on Redis Cluster it is a hash tag (`{switchboard}`). */
  prefix: string;
  /** Seconds a finished job, a dedupe key and an idle line are kept. @defaultValue 86400 */
  retentionSeconds?: number;
  memory: MemoryOptions;
  /** A parked message's first timer (see ordering.ts). */
  orderRecheckMs: number;
  /** See ordering.ts. @defaultValue 30000 */
  orphanAfterMs?: number;
}

/** The pipeline over one Redis: its keys, queue, ordering and exchange, built once per process. */
export class Hub {
  readonly keys: HubKeys;
  readonly redis: HubRedis;
  readonly queue: Queue;
  readonly order: ConversationOrder;
  readonly exchange: Exchange;
  /** The tool loop's record per job: each tool call made once per message. */
  readonly tools: ToolLedger;
  readonly feeds: JobFeeds;
  readonly events: DeliveryEvents;
  readonly retentionSeconds: number;

  constructor(
    redis: RedisClient,
    readonly options: HubOptions,
  ) {
    this.keys = hubKeys(options.prefix);
    this.redis = withHubCommands(redis);
    this.retentionSeconds = options.retentionSeconds ?? 86_400;
    this.queue = createInboundQueue(redis, this.keys);
    this.order = new ConversationOrder(this.redis, this.keys, this.queue, {
      retentionSeconds: this.retentionSeconds,
      recheckMs: options.orderRecheckMs,
      orphanAfterMs: options.orphanAfterMs,
    });
    this.exchange = new Exchange(this.redis, this.keys, this.queue, options.memory);
    this.tools = new ToolLedger(this.redis, this.queue);
    this.feeds = new JobFeeds(this.redis, this.keys);
    this.events = new DeliveryEvents(redis, this.keys, this.retentionSeconds);
  }

  async close(): Promise<void> {
    await Promise.all([this.queue.close().catch(() => {}), this.events.close()]);
  }
}

/** The pipeline as configured: the API and the worker build it the same way. */
export function createHub(redis: RedisClient, settings: Settings): Hub {
  const { worker, sessions } = settings.config;
  return new Hub(redis, {
    prefix: settings.keyPrefix,
    attempts: worker.attempts,
    backoffMs: worker.backoffMs,
    orderRecheckMs: worker.orderRecheckMs,
    memory: { maxMessages: sessions.maxMessages, ttlSeconds: sessions.ttlSeconds },
  });
}
