import type { Cluster, Redis } from 'ioredis';

/** One server or a Redis Cluster (the hub's keys share one slot, so its scripts run on either). */
export type RedisClient = Redis | Cluster;

import { exchangeRecord } from './exchange-record.js';
import { feedAppend } from './feed-append.js';
import { orderAcquire } from './order-acquire.js';
import { orderEnqueue } from './order-enqueue.js';
import { orderMarkRetry, orderRejoin } from './order-rejoin.js';
import { orderRelease } from './order-release.js';
import { trimCompleted } from './trim-completed.js';

/**
 * The pipeline's Lua scripts, each a named command (as BullMQ keeps its own): defined once per
 * client, sent as EVALSHA (ioredis falls back to EVAL after a script flush). Each script's header
 * lists its KEYS and ARGV; all its keys share one hash slot (see keys.ts).
 */
const COMMANDS = [
  orderEnqueue,
  orderAcquire,
  orderRelease,
  orderMarkRetry,
  orderRejoin,
  exchangeRecord,
  feedAppend,
  trimCompleted,
];

type Arg = string | number;

/** The commands as a client offers them once defined: KEYS first, then ARGV. */
export interface HubCommands {
  sbOrderEnqueue(line: string, dedupe: string, job: string, ...args: Arg[]): Promise<[number, number]>;
  sbOrderAcquire(line: string, ...args: Arg[]): Promise<[number, string]>;
  sbOrderRelease(line: string, job: string, delayed: string, dedupe: string, ...args: Arg[]): Promise<string | null>;
  sbOrderMarkRetry(job: string, failed: string, ...args: Arg[]): Promise<number>;
  sbOrderRejoin(line: string, job: string, feed: string, ...args: Arg[]): Promise<number>;
  sbExchangeRecord(job: string, memory: string, ...args: Arg[]): Promise<string | 1>;
  sbFeedAppend(feed: string, ...args: Arg[]): Promise<string>;
  sbTrimCompleted(completed: string, ...args: Arg[]): Promise<number>;
}

export type HubRedis = RedisClient & HubCommands;

/**
 * Runs `send`, whose commands then leave in one socket write (the connection corked around it)
 * rather than one write each: on a busy machine a write is what a command costs the sender most.
 * A Cluster, or a connection not ready (its commands wait in the offline queue), sends as usual.
 */
export function inOneWrite<T>(redis: RedisClient, send: () => T): T {
  const stream = 'stream' in redis && redis.status === 'ready' ? redis.stream : undefined;
  stream?.cork();
  try {
    return send();
  } finally {
    stream?.uncork();
  }
}

/** Defines the commands on `redis` (once; later calls find them there) and returns it typed with them. */
export function withHubCommands(redis: RedisClient): HubRedis {
  for (const command of COMMANDS) {
    if (typeof (redis as unknown as Record<string, unknown>)[command.name] !== 'function') {
      redis.defineCommand(command.name, { numberOfKeys: command.numberOfKeys, lua: command.lua });
    }
  }
  return redis as HubRedis;
}
