import { closeHooks, createHooks, type Hook } from '@switchboard/channels';
import type { HookConfig, Settings } from '@switchboard/config';
import { createHub, type Hub } from '@switchboard/hub';
import { createLogger, type Logger, throttledWarning } from '@switchboard/logger';
import { createGateway, type Gateway } from '@switchboard/providers';
import {
  ChannelStats,
  createQueueRedis,
  quietErrors,
  type Redis,
  RedisCooldownStore,
  SendLimiter,
  stateKeys,
  WorkerRegistry,
} from '@switchboard/state';

/** Everything a worker process is built from; tests build the same with their own settings. */
export interface WorkerDeps {
  settings: Settings;
  logger: Logger;
  /** Providers make one attempt per call here: the job's attempts are the retry loop. */
  gateway: Gateway;
  /** BullMQ-style connection (`maxRetriesPerRequest: null`): commands wait out a Redis outage. */
  redis: Redis;
  hub: Hub;
  hooks: Map<string, Hook<HookConfig>>;
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
  return {
    settings,
    logger,
    // One attempt per call (the job's attempts retry), and the API's cooldowns, shared through Redis.
    gateway: createGateway(settings, {
      retries: false,
      cooldowns: new RedisCooldownStore(redis, keys),
      onStoreError: throttledWarning(logger, 'deployment cooldowns unavailable: routing on this process’s own view'),
    }),
    redis,
    hub: createHub(redis, settings),
    // Sends to a platform target are spaced by turns all workers share.
    hooks: createHooks(settings.config.hooks, { gate: new SendLimiter(redis, keys) }),
    channelStats: new ChannelStats(redis, keys),
    workers: new WorkerRegistry(redis, keys),
  };
}

export async function closeWorkerDeps(deps: WorkerDeps): Promise<void> {
  await deps.hub.close();
  await closeHooks(deps.hooks);
  await deps.gateway.registry.close();
  deps.redis.disconnect();
}
