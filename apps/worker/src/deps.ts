import { type ChannelAdapter, createAdapter } from '@switchboard/channels';
import type { HookConfig, Settings } from '@switchboard/config';
import { createLogger, type Logger } from '@switchboard/logger';
import { createGateway, type Gateway, warmTokenizer } from '@switchboard/providers';
import { createInboundQueue } from '@switchboard/queue';
import {
  ChannelStats,
  ConversationMemory,
  createQueueRedis,
  quietErrors,
  type Redis,
  type StateKeys,
  stateKeys,
  WorkerRegistry,
} from '@switchboard/state';
import type { Queue } from 'bullmq';

export interface WorkerHook {
  config: HookConfig;
  adapter: ChannelAdapter;
}

/** Everything a worker process is built from; tests build the same with their own settings. */
export interface WorkerDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  /** BullMQ-style connection (`maxRetriesPerRequest: null`): commands wait out a Redis outage. */
  redis: Redis;
  queue: Queue;
  hooks: Map<string, WorkerHook>;
  keys: StateKeys;
  memory: ConversationMemory;
  channelStats: ChannelStats;
  workers: WorkerRegistry;
}

export function createWorkerDeps(settings: Settings, overrides: { logger?: Logger } = {}): WorkerDeps {
  const logger =
    overrides.logger ?? createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'worker' } });
  const redis = quietErrors(createQueueRedis(settings.redisUrl), (err) =>
    logger.warn('redis unavailable', { error: err.message }),
  );
  const keys = stateKeys(settings.redisPrefix);
  warmTokenizer();
  const hooks = new Map<string, WorkerHook>();
  for (const [name, config] of Object.entries(settings.config.hooks))
    hooks.set(name, { config, adapter: createAdapter(name, config) });
  return {
    settings,
    logger,
    gateway: createGateway(settings),
    redis,
    queue: createInboundQueue(redis, settings.redisPrefix),
    keys,
    hooks,
    memory: new ConversationMemory(redis, keys, settings.config.sessions),
    channelStats: new ChannelStats(redis, keys),
    workers: new WorkerRegistry(redis, keys),
  };
}

export async function closeWorkerDeps(deps: WorkerDeps): Promise<void> {
  await deps.queue.close().catch(() => {});
  await Promise.allSettled([...deps.hooks.values()].map((hook) => hook.adapter.close()));
  await deps.gateway.registry.close();
  deps.redis.disconnect();
}
