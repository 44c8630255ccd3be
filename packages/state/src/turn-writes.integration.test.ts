import { type PrivateCluster, type PrivateRedis, startPrivateCluster, startPrivateRedis } from '@switchboard/testing';
import { Cluster, type Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueRedis, redisReady } from './redis.js';
import { oneWritePerTurn } from './turn-writes.js';

/** Counts the writes the connection's socket makes (Node's Writable calls one of these per write). */
function countWrites(redis: Redis): () => number {
  const socket = redis.stream as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method];
    socket[method] = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  return () => writes;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('oneWritePerTurn on one server', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    await server.kill();
  });

  it('sends the commands of one turn in one socket write, in the order they were sent', async () => {
    const redis = oneWritePerTurn(createQueueRedis(server.url)) as Redis;
    try {
      expect(await redisReady(redis, 2_000)).toBe(true);
      const writes = countWrites(redis);
      const counts = await Promise.all(Array.from({ length: 20 }, () => redis.incr('turn-writes:count')));
      expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(writes()).toBe(1);
      // Commands sent in later turns (each after the answer to the one before) leave one write each.
      await redis.incr('turn-writes:count');
      await nextTurn();
      await redis.incr('turn-writes:count');
      expect(writes()).toBe(3);
    } finally {
      redis.disconnect();
    }
  });

  it('keeps a command that fails apart from the others of its turn', async () => {
    const redis = oneWritePerTurn(createQueueRedis(server.url)) as Redis;
    try {
      expect(await redisReady(redis, 2_000)).toBe(true);
      const [set, wrong, get] = await Promise.allSettled([
        redis.set('turn-writes:text', 'a'),
        redis.incr('turn-writes:text'),
        redis.get('turn-writes:text'),
      ]);
      expect(set).toEqual({ status: 'fulfilled', value: 'OK' });
      expect(wrong.status).toBe('rejected');
      expect(get).toEqual({ status: 'fulfilled', value: 'a' });
    } finally {
      redis.disconnect();
    }
  });

  it('sends commands made while it connects once it is ready, and resends none', async () => {
    const redis = oneWritePerTurn(createQueueRedis(server.url)) as Redis;
    try {
      const counts = await Promise.all(Array.from({ length: 5 }, () => redis.incr('turn-writes:early')));
      expect(counts).toEqual([1, 2, 3, 4, 5]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('oneWritePerTurn on a Cluster', () => {
  let cluster: PrivateCluster;
  beforeAll(async () => {
    cluster = await startPrivateCluster(3);
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('sends the commands of one turn to a node in one write, on each node', async () => {
    const redis = oneWritePerTurn(createQueueRedis({ mode: 'cluster', nodes: cluster.nodes.map(hostPort), tls: false }));
    try {
      expect(redis).toBeInstanceOf(Cluster);
      // One key per master: each tag lives on its own slot.
      await Promise.all(['{a}', '{b}', '{c}'].map((tag) => redis.set(`${tag}:x`, '0')));
      const nodes = (redis as Cluster).nodes('master');
      expect(nodes).toHaveLength(3);
      const writes = nodes.map(countWrites);
      const keys = Array.from({ length: 30 }, (_, i) => `{${'abc'[i % 3]}}:x`);
      const counts = await Promise.all(keys.map((key) => redis.incr(key)));
      expect(counts).toEqual(keys.map((_, i) => Math.floor(i / 3) + 1));
      const total = writes.reduce((sum, count) => sum + count(), 0);
      // Each master got its ten commands in one write (a master holding two of the tags: still one).
      expect(total).toBeLessThanOrEqual(3);
    } finally {
      redis.disconnect();
    }
  });
});

function hostPort(node: string): { host: string; port: number } {
  const [host, port] = node.split(':');
  return { host: host!, port: Number(port) };
}
