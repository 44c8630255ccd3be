import { closeHooks, createHooks, credentialChecks, type Hook } from '@switchboard/channels';
import type { HookConfig, Settings } from '@switchboard/config';
import { createHubs, type Hub, type ShardedHub } from '@switchboard/hub';
import { createLogger, type Logger, throttledWarning } from '@switchboard/logger';
import { deliveryMetrics, gatewayMetrics, Metrics } from '@switchboard/metrics';
import { scrubSecrets } from '@switchboard/protocol';
import { createGateway, type Gateway } from '@switchboard/providers';
import {
  ChannelChecks,
  ChannelStats,
  createQueueRedis,
  McpStatusBoard,
  oneWritePerTurn,
  type RedisClient,
  RedisCooldownStore,
  type RedisWatch,
  SendLimiter,
  settlesWithin,
  stateKeys,
  type UsageMeter,
  usageAccounting,
  WorkerRegistry,
  warnUnlessNoEviction,
  watchRedis,
  withRedisDroppedOnError,
} from '@switchboard/state';
import { McpServers } from '@switchboard/tools';
import { gatewayTracing, type Tracing } from '@switchboard/tracing';
import { MediaDownloader } from './media/download-media.js';

/** Everything a worker process is built from; tests build the same with their own settings. */
export interface WorkerDeps {
  settings: Settings;
  logger: Logger;
  /** Providers make one attempt per call here: the job's attempts are the retry loop. */
  gateway: Gateway;
  /** BullMQ-style connection (`maxRetriesPerRequest: null`): commands wait out a Redis outage. */
  redis: RedisClient;
  /** The outage log of `redis`, which BullMQ's connection errors report to as well. */
  redisWatch: RedisWatch;
  /** Every shard of the pipeline (`redis.shards`). */
  hubs: ShardedHub;
  /**
   * The shard a processor serves: startWorker gives each shard's processor deps with its own;
   * here, shard 0 (a deployment's only shard unless `redis.shards` says more).
   */
  hub: Hub;
  hooks: Map<string, Hook<HookConfig>>;
  channelStats: ChannelStats;
  channelChecks: ChannelChecks;
  workers: WorkerRegistry;
  /** Records the usage of the model calls made for hooks, and enforces their budgets. */
  meter: UsageMeter;
  /** Fetches the files messages carry (hooks' `media`), bounded in size and time. */
  media: MediaDownloader;
  /** Prometheus metrics of this process, unless `metrics.enabled` is false. */
  metrics?: Metrics;
  /** OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (see `startTracing`). */
  tracing?: Tracing;
  /** The configured MCP servers (connecting from the start), when `mcpServers` names any. */
  tools?: McpServers;
}

/** @throws ConfigError when the settings name a model no provider serves (the Redis connection is dropped first). */
export function createWorkerDeps(
  settings: Settings,
  overrides: { logger?: Logger; tracing?: Tracing | undefined } = {},
): WorkerDeps {
  const { tracing } = overrides;
  const logger =
    overrides.logger ?? createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'worker' } });
  // Many jobs in flight: what one turn of the event loop sends leaves in one socket write.
  const redis = oneWritePerTurn(createQueueRedis(settings.redis));
  const redisWatch = watchRedis(redis, logger);
  warnUnlessNoEviction(redis, logger);
  const keys = stateKeys(settings.redisPrefix, { cluster: settings.redis.mode === 'cluster' });
  const metrics = settings.config.metrics.enabled ? new Metrics('worker') : undefined;
  const gateway = withRedisDroppedOnError(redis, () =>
    // One attempt per call (the job's attempts retry), and the API's cooldowns, shared through Redis.
    createGateway(settings, {
      ...(metrics || tracing
        ? { observer: { ...(metrics ? gatewayMetrics(metrics) : {}), ...(tracing ? gatewayTracing(tracing) : {}) } }
        : {}),
      retries: false,
      log: logger,
      cooldowns: new RedisCooldownStore(redis, keys),
      onStoreError: throttledWarning(logger, 'deployment cooldowns unavailable: routing on this process’s own view'),
    }),
  );
  // Sends to a platform target are spaced by turns all workers share.
  const hooks = createHooks(settings.config.hooks, {
    gate: new SendLimiter(redis, keys),
    ...(metrics ? { onPlatformCall: deliveryMetrics(metrics) } : {}),
  });
  const channelStats = new ChannelStats(redis, keys);
  const hubs = createHubs(redis, settings);
  const tools = mcpServers(settings, logger, new McpStatusBoard(redis, keys));
  return {
    settings,
    logger,
    gateway,
    redis,
    redisWatch,
    hubs,
    hub: hubs.shards[0]!,
    hooks,
    channelStats,
    channelChecks: new ChannelChecks(redis, keys, channelStats, credentialChecks(hooks), {
      intervalMs: settings.config.health.channelCheckMs,
      log: logger,
    }),
    workers: new WorkerRegistry(redis, keys),
    meter: usageAccounting(redis, keys, settings.config, throttledWarning(logger, 'usage not recorded: Redis did not take it'))
      .meter,
    media: new MediaDownloader(),
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
    ...(tools ? { tools } : {}),
  };
}

/** The MCP servers' connections, started now: the first tool loop waits for their first attempt. */
function mcpServers(settings: Settings, logger: Logger, board: McpStatusBoard): McpServers | undefined {
  if (Object.keys(settings.config.mcpServers).length === 0) return undefined;
  const secrets = [...settings.secrets].sort((a, b) => b.length - a.length);
  const unreported = throttledWarning(logger, 'mcp server state not reported: Redis did not take it');
  const tools = new McpServers(settings.config.mcpServers, {
    log: (level, message, meta) => logger[level](message, meta),
    scrub: (text) => scrubSecrets(text, secrets),
    // What /status shows of each server (the API connects to none).
    onChange: (state) => void board.report([state]).catch(unreported),
  });
  tools.start().catch(() => {});
  return tools;
}

/**
 * Closes everything, each step bounded: with Redis away its commands would wait forever (this
 * connection queues them), so nothing here waits on Redis for more than a moment.
 */
export async function closeWorkerDeps(deps: WorkerDeps): Promise<void> {
  await deps.channelChecks.stop();
  await Promise.all([
    settlesWithin(Promise.all([deps.channelStats.close(), deps.meter.close()]), 1_000),
    settlesWithin(deps.hubs.close(), 1_000),
    closeHooks(deps.hooks),
    deps.media.close(),
    deps.gateway.registry.close(),
    deps.tracing?.shutdown(),
    deps.tools?.close(),
  ]);
  deps.redis.disconnect();
}
