import { readFileSync } from 'node:fs';
import { closeHookAdapters } from '@switchboard/channels';
import type { Settings } from '@switchboard/config';
import { createLogger, type Logger } from '@switchboard/logger';
import { serviceUnavailable } from '@switchboard/protocol';
import { createGateway, type Gateway } from '@switchboard/providers';
import { createInboundQueue } from '@switchboard/queue';
import {
  ActiveSessions,
  ChannelStats,
  createRedis,
  quietErrors,
  RateLimiter,
  type Redis,
  redisReady,
  type StateKeys,
  stateKeys,
  WorkerRegistry,
} from '@switchboard/state';
import type { Queue } from 'bullmq';
import { createHooks, type Hook } from './hook-registry.js';

/** Everything the app is built from; tests build the same thing with their own settings. */
export interface AppDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  /** Fails fast while Redis is away (no offline queue), so requests never hang on it. */
  redis: Redis;
  keys: StateKeys;
  /**
   * The BullMQ queue once Redis answers, or a 503 `queue_unavailable`. It is made on first use,
   * so an API that starts while Redis is away never has BullMQ waiting on a dead connection.
   */
  readyQueue: () => Promise<Queue>;
  hooks: Map<string, Hook>;
  channelStats: ChannelStats;
  sessions: ActiveSessions;
  rateLimiter: RateLimiter;
  workers: WorkerRegistry;
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
  let queue: Queue | undefined;
  const hooks = createHooks(settings.config.hooks);
  const gateway = createGateway(settings);
  return {
    settings,
    logger,
    gateway,
    redis,
    keys,
    readyQueue: async () => {
      if (!(await redisReady(redis))) throw serviceUnavailable('Redis is not reachable; try again shortly.', 'queue_unavailable');
      queue ??= createInboundQueue(redis, settings.redisPrefix);
      return queue;
    },
    hooks,
    channelStats: new ChannelStats(redis, keys),
    rateLimiter: new RateLimiter(redis, keys),
    sessions: new ActiveSessions(redis, keys, settings.config.sessions.activeWindowSeconds),
    workers: new WorkerRegistry(redis, keys),
    version: readVersion(),
    startedAt: new Date(),
    async close() {
      await gateway.registry.close();
      await queue?.close().catch(() => {});
      await closeHookAdapters(hooks);
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
