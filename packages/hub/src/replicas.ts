import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import type { RedisClient } from './commands/index.js';

/** How long accepting a message waits for replicas at most. */
export const REPLICA_WAIT_MS = 1_000;

/**
 * Redis WAIT (https://redis.io/docs/latest/commands/wait/): blocks until `replicas` replicas have
 * acknowledged every write sent before it *on the same connection*, or the time-out. On a cluster
 * it goes to the connection of the master that serves `key`'s slot: ioredis keeps one connection
 * per node and sends a slot's commands (BullMQ's included) through it. True when enough replicas
 * answered in time.
 */
export async function waitForReplicas(redis: RedisClient, key: string, replicas: number): Promise<boolean> {
  const node = redis instanceof Cluster ? masterOf(redis, key) : redis;
  if (!node) return false;
  try {
    return Number(await node.call('WAIT', replicas, REPLICA_WAIT_MS)) >= replicas;
  } catch {
    // The message is queued all the same: not confirmed, not refused.
    return false;
  }
}

function masterOf(cluster: Cluster, key: string) {
  const address = cluster.slots[calculateSlot(key)]?.[0];
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === address);
}
