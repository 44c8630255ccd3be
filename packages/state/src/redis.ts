import type { RedisTarget } from '@switchboard/config';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { type OutageLine, OutageLog } from './redis-outage.js';

export type { Redis };

/** A connection to one server (or a Sentinel-named master) or to a Redis Cluster: every command we use works on both. */
export type RedisClient = Redis | Cluster;

/**
 * A Redis client that never blocks a request while Redis is away: commands fail at once
 * instead of queueing (`enableOfflineQueue: false`), and it reconnects by itself forever.
 * The database index in a URL (`redis://host:6379/3`) is honoured by ioredis.
 */
export function createRedis(target: RedisTarget | string, options: RedisOptions = {}): RedisClient {
  return connect(target, { ...reconnecting, enableOfflineQueue: false, maxRetriesPerRequest: 1, ...options });
}

/** Both kinds of client: a short connect time-out, then reconnects every 0.2–2 s, forever. */
const reconnecting: RedisOptions = {
  connectTimeout: 2_000,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
};

/** For BullMQ, which needs `maxRetriesPerRequest: null` and an offline queue on its connections. */
export function createQueueRedis(target: RedisTarget | string, options: RedisOptions = {}): RedisClient {
  return connect(target, { ...reconnecting, maxRetriesPerRequest: null, enableOfflineQueue: true, ...options });
}

function connect(target: RedisTarget | string, options: RedisOptions): RedisClient {
  if (typeof target === 'string') return new Redis(target, options);
  switch (target.mode) {
    case 'single':
      return new Redis(target.url, options);
    case 'sentinel':
      return new Redis({
        ...options,
        sentinels: target.sentinels,
        name: target.name,
        db: target.db,
        ...auth(target),
        // The sentinels speak TLS as the master does.
        ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
      });
    case 'cluster': {
      const { enableOfflineQueue, retryStrategy, ...perNode } = options;
      const cluster: ClusterOptions = {
        redisOptions: { ...perNode, ...auth(target), ...(target.tls ? { tls: {} } : {}) },
        enableOfflineQueue: enableOfflineQueue ?? true,
        // Reconnects the cluster (its seed nodes) as a single server would be.
        clusterRetryStrategy: (attempt) => (retryStrategy ? retryStrategy(attempt) : Math.min(attempt * 200, 2_000)),
        slotsRefreshTimeout: 2_000,
      };
      return new Cluster(target.nodes, cluster);
    }
  }
}

function auth(target: { username?: string; password?: string }): RedisOptions {
  return {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
  };
}

/** True when Redis answers PING within `timeoutMs`. */
/**
 * Defines Lua scripts as named commands on `redis` (once per client: a later call finds them
 * there), sent as EVALSHA. `numberOfKeys` omitted: the caller passes the key count first.
 */
export function defineCommands(redis: RedisClient, commands: Record<string, { lua: string; numberOfKeys?: number }>): void {
  const defined = redis as unknown as Record<string, unknown>;
  for (const [name, command] of Object.entries(commands)) {
    if (typeof defined[name] !== 'function') redis.defineCommand(name, command);
  }
}

export async function pingRedis(redis: RedisClient, timeoutMs = 1_000): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  try {
    return (await withTimeout(redis.ping(), timeoutMs)) === 'PONG';
  } catch {
    return false;
  }
}

/** `promise`, or a rejection after `ms`: a Redis read must never hold a request for long. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Where state reports what an operator should know; the apps pass their logger. */
export interface StateLog {
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
}

export interface RedisWatch {
  /** Reports a failure seen elsewhere (BullMQ's worker) as part of the same outage. */
  failed(err: Error): void;
  /**
   * Sorts an error from another connection to the same Redis (BullMQ's worker duplicates the
   * client): part of the outage when the watched client is away, and so is a connection error
   * (ECONNRESET, "Connection is closed") when the watched client notices the outage within
   * `settleMs` (another connection can see the reset first); anything else goes to `otherwise`.
   */
  report(err: Error, otherwise: (err: Error) => void, settleMs?: number): void;
  readonly down: boolean;
}

const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH']);

/** Whether `err` says a connection to Redis broke rather than that a command failed. */
export function isConnectionError(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return /\b(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)\b|Connection is closed/.test(err.message);
}

/**
 * Listens to a client's 'error' events, so none goes unhandled (ioredis reconnects by itself),
 * and logs an outage once when it begins, at most once a minute while it lasts, and once when
 * Redis is back (`OutageLog`).
 */
export function watchRedis(redis: RedisClient, log: StateLog, outage = new OutageLog()): RedisWatch {
  const write = (line: OutageLine | null) => line && log[line.level](line.message, line.meta);
  const failed = (err: Error) => write(outage.failed(err.message));
  const away = () => outage.down || redis.status !== 'ready';
  redis.on('error', failed);
  redis.on('ready', () => write(outage.recovered()));
  return {
    failed,
    report(err, otherwise, settleMs = 1_000) {
      if (away()) failed(err);
      else if (!isConnectionError(err)) otherwise(err);
      else setTimeout(() => (away() ? failed(err) : otherwise(err)), settleMs).unref();
    },
    get down() {
      return outage.down;
    },
  };
}

/** Whether `promise` settled within `ms`: a shutdown step must never wait longer on Redis. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * True once the client is ready, waiting up to `timeoutMs` while it connects or reconnects, so a
 * request arriving during a blip or just after start-up is not refused for nothing.
 */
export async function redisReady(redis: RedisClient, timeoutMs = 1_000): Promise<boolean> {
  if (redis.status === 'ready') return true;
  if (redis.status === 'end') return false;
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}

/**
 * `build()`'s result; when it throws (a ConfigError at start-up), `redis` is disconnected first,
 * so a process that cannot start does not keep a connection reconnecting.
 */
export function withRedisDroppedOnError<T>(redis: RedisClient, build: () => T): T {
  try {
    return build();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

/** Another connection like `redis` (to the same server or cluster), with `options` changed. */
export function duplicateClient(redis: RedisClient, options: RedisOptions): RedisClient {
  if (redis instanceof Cluster) {
    const { enableOfflineQueue, ...perNode } = options;
    return redis.duplicate(undefined, {
      ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
      redisOptions: { ...redis.options.redisOptions, ...perNode },
    });
  }
  return redis.duplicate(options);
}
