import { closeHookAdapters, createHookAdapters, type HookAdapter } from '@switchboard/channels';
import type { Settings } from '@switchboard/config';
import { createLogger, type Logger } from '@switchboard/logger';
import { createGateway, type Gateway } from '@switchboard/providers';
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

/** Everything a worker process is built from; tests build the same with their own settings. */
export interface WorkerDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  /** BullMQ-style connection (`maxRetriesPerRequest: null`): commands wait out a Redis outage. */
  redis: Redis;
  queue: Queue;
  hooks: Map<string, HookAdapter>;
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
  const hooks = createHookAdapters(settings.config.hooks);
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
  await closeHookAdapters(deps.hooks);
  await deps.gateway.registry.close();
  deps.redis.disconnect();
}
