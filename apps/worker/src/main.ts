import { ConfigError, loadSettings } from '@switchboard/config';
import { createLogger } from '@switchboard/logger';
import { createRedis, quietErrors, stateKeys, WorkerRegistry } from '@switchboard/state';
import { startHeartbeat } from './heartbeat.js';

/** `npm run start:worker`: connect to Redis, heartbeat, stop cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let settings: ReturnType<typeof loadSettings>;
  try {
    settings = loadSettings(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`switchboard: configuration error: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const logger = createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'worker' } });
  const redis = quietErrors(createRedis(settings.redisUrl, { enableOfflineQueue: true }), (err) =>
    logger.warn('redis unavailable', { error: err.message }),
  );
  const heartbeat = startHeartbeat(new WorkerRegistry(redis, stateKeys(settings.redisPrefix)), 1);
  logger.info('worker started', { worker_id: heartbeat.id });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('worker stopping', { signal });
    await heartbeat.stop();
    redis.disconnect();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error('switchboard: worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
