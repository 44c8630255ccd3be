import { readFileSync } from 'node:fs';
import type { Settings } from '@switchboard/config';
import { createLogger, type Logger } from '@switchboard/logger';
import { createRegistry, Gateway, warmTokenizer } from '@switchboard/providers';
import { createInboundQueue } from '@switchboard/queue';
import {
  ActiveSessions,
  createQueueRedis,
  createRedis,
  quietErrors,
  type Redis,
  stateKeys,
  WorkerRegistry,
} from '@switchboard/state';
import type { Queue } from 'bullmq';

/** Everything the app is built from; tests build the same thing with their own settings. */
export interface AppDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  redis: Redis;
  queueRedis: Redis;
  inboundQueue: Queue;
  sessions: ActiveSessions;
  workers: WorkerRegistry;
  version: string;
  startedAt: Date;
}

export function createDeps(settings: Settings, overrides: { logger?: Logger } = {}): AppDeps {
  const logger =
    overrides.logger ?? createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'api' } });
  const redis = quietErrors(createRedis(settings.redisUrl), (err) => logger.warn('redis unavailable', { error: err.message }));
  const queueRedis = quietErrors(createQueueRedis(settings.redisUrl));
  const keys = stateKeys(settings.redisPrefix);
  warmTokenizer();
  return {
    settings,
    logger,
    gateway: new Gateway(createRegistry(settings)),
    redis,
    queueRedis,
    inboundQueue: createInboundQueue(queueRedis, settings.redisPrefix),
    sessions: new ActiveSessions(redis, keys, settings.config.sessions.activeWindowSeconds),
    workers: new WorkerRegistry(redis, keys),
    version: readVersion(),
    startedAt: new Date(),
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  await deps.gateway.registry.close();
  await deps.inboundQueue.close().catch(() => {});
  deps.queueRedis.disconnect();
  deps.redis.disconnect();
}

function readVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return pkg && typeof pkg === 'object' && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
