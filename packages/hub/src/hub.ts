import type { Settings } from '@switchboard/config';
import type { Queue } from 'bullmq';
import { type HubRedis, type RedisClient, withHubCommands } from './commands/index.js';
import { DeliveryEvents } from './delivery-events.js';
import { Exchange, type MemoryOptions } from './exchange.js';
import { JobFeeds } from './job-feed.js';
import { JobRetention } from './job-retention.js';
import { type HubKeys, hubKeys } from './keys.js';
import { ConversationOrder } from './ordering.js';
import { createInboundQueue } from './queues.js';
import { waitForReplicas } from './replicas.js';
import type { RetryPolicy } from './retry-policy.js';
import { shardBases, shardedJobId, shardOf, shardOfJob } from './shards.js';
import { ToolLedger } from './tool-ledger.js';
import { Transcripts } from './transcripts.js';

export interface HubOptions extends RetryPolicy {
  /** Every key lives under this prefix; on Redis Cluster it is a hash tag (`{switchboard}`). */
  prefix: string;
  /** Seconds a finished job, a dedupe key and an idle line are kept. @defaultValue 86400 */
  retentionSeconds?: number;
  /** Finished jobs kept per shard besides the age bound: completed ones, and failed ones apart. @defaultValue 10000 */
  keepJobs?: number;
  memory: MemoryOptions;
  /** A parked message's first timer (see ordering.ts). */
  orderRecheckMs: number;
  /** See ordering.ts. @defaultValue 30000 */
  orphanAfterMs?: number;
  /** This shard's number and the deployment's count (shards.ts). @defaultValue { index: 0, count: 1 } */
  shard?: { index: number; count: number };
  /** The delivery-events queue, when another shard made it (one queue serves every shard). */
  events?: DeliveryEvents;
  /** Replicas that must have an accepted message before it counts as accepted (replicas.ts). @defaultValue 0 */
  replicaAcks?: number;
}

/**
 * What finds the pipeline of a conversation or a job: a `ShardedHub`, or one `Hub` (a deployment
 * of one shard, or a test's hub), which is its own only shard.
 */
export interface HubShards {
  readonly shards: readonly Hub[];
  /** The shard a conversation (its `conversationKey`) belongs to. */
  forConversation(conversation: string): Hub;
  /** The shard whose queue holds the job with this id (shards.ts `shardOfJob`). */
  forJob(jobId: string): Hub;
}

/** The pipeline of one shard: its keys, queue, ordering and exchange, built once per process. */
export class Hub implements HubShards {
  readonly keys: HubKeys;
  readonly redis: HubRedis;
  readonly queue: Queue;
  readonly order: ConversationOrder;
  readonly exchange: Exchange;
  /** The tool loop's record per job: each tool call made once per message. */
  readonly tools: ToolLedger;
  /** The transcripts of each job's voice notes: each transcribed once per message. */
  readonly transcripts: Transcripts;
  readonly feeds: JobFeeds;
  /** What the shard keeps of finished jobs, and the trims that hold it there. */
  readonly retention: JobRetention;
  readonly events: DeliveryEvents;
  readonly retentionSeconds: number;
  /** This shard's number (0 in a deployment of one shard). */
  readonly shard: number;
  readonly #shardCount: number;

  constructor(
    redis: RedisClient,
    readonly options: HubOptions,
  ) {
    this.keys = hubKeys(options.prefix);
    this.redis = withHubCommands(redis);
    this.retentionSeconds = options.retentionSeconds ?? 86_400;
    this.shard = options.shard?.index ?? 0;
    this.#shardCount = options.shard?.count ?? 1;
    this.queue = createInboundQueue(redis, this.keys);
    this.order = new ConversationOrder(this.redis, this.keys, this.queue, {
      retentionSeconds: this.retentionSeconds,
      recheckMs: options.orderRecheckMs,
      orphanAfterMs: options.orphanAfterMs,
    });
    this.exchange = new Exchange(this.redis, this.keys, this.queue, options.memory);
    this.tools = new ToolLedger(this.redis, this.queue);
    this.transcripts = new Transcripts(this.redis, this.queue);
    this.feeds = new JobFeeds(this.redis, this.keys);
    this.retention = new JobRetention(this.redis, this.queue, this.retentionSeconds, options.keepJobs ?? 10_000);
    this.events = options.events ?? new DeliveryEvents(redis, this.keys, this.retentionSeconds);
  }

  /**
   * Whether `replicaAcks` replicas have every write this process made to this shard's master so
   * far (true when none are asked for). Bounded: at most twice `REPLICA_WAIT_MS` (replicas.ts).
   */
  replicated(): Promise<boolean> {
    const wanted = this.options.replicaAcks ?? 0;
    return wanted > 0 ? waitForReplicas(this.redis, this.keys.bullPrefix, wanted) : Promise.resolve(true);
  }

  get shards(): readonly Hub[] {
    return [this];
  }

  forConversation(): Hub {
    return this;
  }

  forJob(): Hub {
    return this;
  }

  /** The id a job of this shard gets from `id` (unique or derived from a dedupe key): `<id>~<shard>` when there are several. */
  jobId(id: string): string {
    return shardedJobId(id, this.shard, this.#shardCount);
  }

  async close(): Promise<void> {
    await Promise.all([this.queue.close().catch(() => {}), this.events.close()]);
  }
}

/** Every shard of the pipeline (`redis.shards`), and which one a conversation or job belongs to. */
export class ShardedHub implements HubShards {
  readonly shards: readonly Hub[];

  constructor(redis: RedisClient, options: Omit<HubOptions, 'prefix' | 'shard' | 'events'>, bases: readonly string[]) {
    const shards: Hub[] = [];
    for (const [index, prefix] of bases.entries()) {
      // One delivery-events queue, shard 0's: events are few, and one sender serves them all.
      const events = shards[0]?.events;
      shards.push(new Hub(redis, { ...options, prefix, shard: { index, count: bases.length }, ...(events ? { events } : {}) }));
    }
    this.shards = shards;
  }

  forConversation(conversation: string): Hub {
    return this.shards[shardOf(conversation, this.shards.length)]!;
  }

  forJob(jobId: string): Hub {
    return this.shards[shardOfJob(jobId, this.shards.length)]!;
  }

  /** The delivery-events queue every shard shares. */
  get events(): DeliveryEvents {
    return this.shards[0]!.events;
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((shard) => shard.close()));
  }
}

/** The pipeline as configured, every shard: the API and the worker build it the same way. */
export function createHubs(redis: RedisClient, settings: Settings): ShardedHub {
  const { worker, sessions } = settings.config;
  return new ShardedHub(
    redis,
    {
      attempts: worker.attempts,
      backoffMs: worker.backoffMs,
      orderRecheckMs: worker.orderRecheckMs,
      memory: { maxMessages: sessions.maxMessages, ttlSeconds: sessions.ttlSeconds },
      replicaAcks: settings.config.redis.replicaAcks,
      keepJobs: worker.keepJobs,
    },
    shardBases(settings),
  );
}

/** The pipeline of a deployment of one shard (tests, tools): its only shard. */
export function createHub(redis: RedisClient, settings: Settings): Hub {
  if (settings.config.redis.shards !== 1) throw new Error('createHub: this deployment has several shards; use createHubs');
  return createHubs(redis, settings).shards[0]!;
}
