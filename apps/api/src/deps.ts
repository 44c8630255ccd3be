import cluster from 'node:cluster';
import { closeHooks, createHooks, credentialChecks, type Hook } from '@switchboard/channels';
import { type HookConfig, packageVersion, type Settings } from '@switchboard/config';
import { createHubs, type ShardedHub } from '@switchboard/hub';
import { createLogger, type Logger, throttledWarning } from '@switchboard/logger';
import { gatewayMetrics, Metrics, registerSharedGauges } from '@switchboard/metrics';
import { scrubSecrets, serviceUnavailable } from '@switchboard/protocol';
import { createGateway, type Gateway } from '@switchboard/providers';
import {
  AccessStore,
  ActiveSessions,
  ChannelChecks,
  ChannelStats,
  createRedis,
  McpStatusBoard,
  oneWritePerTurn,
  RateLimiter,
  type RedisClient,
  RedisCooldownStore,
  ResponseCacheStore,
  redisReady,
  type StateKeys,
  settlesWithin,
  stateKeys,
  type UsageLedger,
  type UsageMeter,
  usageAccounting,
  WorkerRegistry,
  warnUnlessNoEviction,
  watchRedis,
  withRedisDroppedOnError,
} from '@switchboard/state';
import { McpServers } from '@switchboard/tools';
import { gatewayTracing, type Tracing } from '@switchboard/tracing';
import { ResponseCache } from './services/response-cache.js';
import { readSharedState } from './services/status-service.js';

/** Everything the app is built from; tests build the same thing with their own settings. */
export interface AppDeps {
  settings: Settings;
  logger: Logger;
  gateway: Gateway;
  /** Fails fast while Redis is away (no offline queue), so requests never hang on it. */
  redis: RedisClient;
  keys: StateKeys;
  /**
   * The hook pipeline once Redis answers, or a 503 `queue_unavailable`. It is made on first use,
   * so an API that starts while Redis is away never has BullMQ waiting on a dead connection.
   */
  readyHub: () => Promise<ShardedHub>;
  hooks: Map<string, Hook<HookConfig>>;
  channelStats: ChannelStats;
  /** Checks the hooks' credentials with their platforms; started by `startServer`. */
  channelChecks: ChannelChecks;
  /** The response cache, when `cache` is configured. */
  cache?: ResponseCache;
  sessions: ActiveSessions;
  rateLimiter: RateLimiter;
  /** Approved people and pairing requests of the hooks' `access` (access-store.ts). */
  access: AccessStore;
  /** Usage and spend per key, model and day; the keys' budgets (usage-meter.ts). */
  usage: { ledger: UsageLedger; meter: UsageMeter };
  workers: WorkerRegistry;
  /** The configured MCP servers' names, and their state as the workers report it (/status). */
  mcpServers: { names: string[]; board: McpStatusBoard };
  /**
   * This process's own MCP clients, for `mcp` tools on /v1/responses: a server is connected when a
   * request first names it, the connection reused after; not reported to /status (the workers' view).
   */
  tools: McpServers;
  /** Prometheus metrics, unless `metrics.enabled` is false. */
  metrics?: Metrics;
  /** OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (see `startTracing`). */
  tracing?: Tracing;
  version: string;
  startedAt: Date;
  /** Closes pools, the queue (if it was made) and Redis; each step bounded, so Redis being away never holds it. */
  close(): Promise<void>;
}

/** @throws ConfigError when the settings name a model no provider serves (the Redis connection is dropped first). */
export function createDeps(
  settings: Settings,
  overrides: { logger?: Logger; version?: string; tracing?: Tracing | undefined } = {},
): AppDeps {
  const { tracing } = overrides;
  // Under API_PROCESSES every line says which process wrote it (they share one stdout).
  const defaultMeta = cluster.isWorker ? { service: 'api', pid: process.pid } : { service: 'api' };
  const logger = overrides.logger ?? createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta });
  // Many requests in flight: what one turn of the event loop sends leaves in one socket write.
  const redis = oneWritePerTurn(createRedis(settings.redis));
  watchRedis(redis, logger);
  warnUnlessNoEviction(redis, logger);
  const keys = stateKeys(settings.redisPrefix, { cluster: settings.redis.mode === 'cluster' });
  const metrics = settings.config.metrics.enabled ? new Metrics('api') : undefined;
  const gateway = withRedisDroppedOnError(redis, () =>
    // Cooldowns live in Redis, so every API and worker process leaves a failing deployment alone.
    createGateway(settings, {
      ...(metrics || tracing
        ? { observer: { ...(metrics ? gatewayMetrics(metrics) : {}), ...(tracing ? gatewayTracing(tracing) : {}) } }
        : {}),
      log: logger,
      cooldowns: new RedisCooldownStore(redis, keys),
      onStoreError: throttledWarning(logger, 'deployment cooldowns unavailable: routing on this process’s own view'),
    }),
  );
  const cacheConfig = settings.config.cache;
  let hub: ShardedHub | undefined;
  const hooks = createHooks(settings.config.hooks);
  const channelStats = new ChannelStats(redis, keys);
  const channelChecks = new ChannelChecks(redis, keys, channelStats, credentialChecks(hooks), {
    intervalMs: settings.config.health.channelCheckMs,
    log: logger,
  });
  const sessions = new ActiveSessions(redis, keys, settings.config.sessions.activeWindowSeconds);
  const usage = usageAccounting(
    redis,
    keys,
    settings.config,
    throttledWarning(logger, 'usage not recorded: Redis did not take it'),
  );
  const workers = new WorkerRegistry(redis, keys);
  const secrets = [...settings.secrets].sort((a, b) => b.length - a.length);
  const tools = new McpServers(settings.config.mcpServers, {
    log: (level, message, meta) => logger[level](message, meta),
    scrub: (text) => scrubSecrets(text, secrets),
  });
  const readyHub = async () => {
    if (!(await redisReady(redis))) throw serviceUnavailable('Redis is not reachable; try again shortly.', 'queue_unavailable');
    hub ??= createHubs(redis, settings);
    return hub;
  };
  const deps: AppDeps = {
    settings,
    logger,
    gateway,
    redis,
    keys,
    readyHub,
    hooks,
    channelStats,
    channelChecks,
    rateLimiter: new RateLimiter(redis, keys),
    access: new AccessStore(redis, keys),
    usage,
    sessions,
    workers,
    mcpServers: { names: Object.keys(settings.config.mcpServers), board: new McpStatusBoard(redis, keys) },
    tools,
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
    ...(cacheConfig ? { cache: new ResponseCache(new ResponseCacheStore(redis, keys), cacheConfig, logger) } : {}),
    version: overrides.version ?? packageVersion(new URL('../package.json', import.meta.url)),
    startedAt: new Date(),
    async close() {
      await channelChecks.stop();
      await Promise.all([
        gateway.registry.close(),
        closeHooks(hooks),
        settlesWithin(hub?.close() ?? Promise.resolve(), 1_000),
        settlesWithin(tools.close(), 1_000),
        settlesWithin(Promise.all([channelStats.close(), sessions.close(), usage.meter.close()]), 1_000),
        tracing?.shutdown(),
      ]);
      redis.disconnect();
    },
  };
  if (metrics) {
    // The same read as /status, once per scrape.
    registerSharedGauges(metrics, {
      read: async () => {
        const { channels, activeSessions, queue, workers: live } = await readSharedState(deps);
        return {
          queue,
          channels: new Map(channels.map((channel) => [channel.name, channel.connected === true])),
          activeSessions,
          workerProcesses: live.length,
        };
      },
    });
  }
  return deps;
}
