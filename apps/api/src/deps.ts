import { readFileSync } from 'node:fs';
import { closeHooks, createHooks, type Hook } from '@switchboard/channels';
import type { HookConfig, Settings } from '@switchboard/config';
import { createHub, type Hub } from '@switchboard/hub';
import { createLogger, type Logger, throttledWarning } from '@switchboard/logger';
import { serviceUnavailable } from '@switchboard/protocol';
import { createGateway, type Gateway } from '@switchboard/providers';
import {
  ActiveSessions,
  ChannelStats,
  createRedis,
  quietErrors,
  RateLimiter,
  type Redis,
  RedisCooldownStore,
  ResponseCacheStore,
  redisReady,
  type StateKeys,
  stateKeys,
  WorkerRegistry,
} from '@switchboard/state';
import { ResponseCache } from './services/response-cache.js';

/** Everything the app is built from; tests build the same thing with their own settings. */
export interface AppDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  /** Fails fast while Redis is away (no offline queue), so requests never hang on it. */
  redis: Redis;
  keys: StateKeys;
  /**
   * The hook pipeline once Redis answers, or a 503 `queue_unavailable`. It is made on first use,
   * so an API that starts while Redis is away never has BullMQ waiting on a dead connection.
   */
  readyHub: () => Promise<Hub>;
  hooks: Map<string, Hook<HookConfig>>;
  channelStats: ChannelStats;
  sessions: ActiveSessions;
  rateLimiter: RateLimiter;
  workers: WorkerRegistry;
  /** The response cache, when `cache` is configured. */
  cache?: ResponseCache;
  version: string;
  startedAt: Date;
  /** Closes pools, the queue (if it was made) and Redis. */
  close(): Promise<void>;
}

export function createDeps(settings: Settings, overrides: { logger?: Logger } = {}): AppDeps {
  const logger =
    overrides.logger ?? createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'api' } });
  const redis = quietErrors(createRedis(settings.redisUrl), (err) => logger.warn('redis unavailable', { error: err.message }));
  const keys = stateKeys(settings.redisPrefix);
  let hub: Hub | undefined;
  const hooks = createHooks(settings.config.hooks);
  // Cooldowns live in Redis, so every API and worker process leaves a failing deployment alone.
  const gateway = createGateway(settings, {
    cooldowns: new RedisCooldownStore(redis, keys),
    onStoreError: throttledWarning(logger, 'deployment cooldowns unavailable: routing on this process’s own view'),
  });
  const cacheConfig = settings.config.cache;
  const channelStats = new ChannelStats(redis, keys);
  const sessions = new ActiveSessions(redis, keys, settings.config.sessions.activeWindowSeconds);
  return {
    settings,
    logger,
    gateway,
    redis,
    keys,
    readyHub: async () => {
      if (!(await redisReady(redis))) throw serviceUnavailable('Redis is not reachable; try again shortly.', 'queue_unavailable');
      hub ??= createHub(redis, settings);
      return hub;
    },
    hooks,
    channelStats,
    rateLimiter: new RateLimiter(redis, keys),
    sessions,
    workers: new WorkerRegistry(redis, keys),
    ...(cacheConfig ? { cache: new ResponseCache(new ResponseCacheStore(redis, keys), cacheConfig, logger) } : {}),
    version: readVersion(),
    startedAt: new Date(),
    async close() {
      await gateway.registry.close();
      await hub?.close();
      await closeHooks(hooks);
      await Promise.all([channelStats.close(), sessions.close()]);
      redis.disconnect();
    },
  };
}

function readVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return pkg && typeof pkg === 'object' && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
