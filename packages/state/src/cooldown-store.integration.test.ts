import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCooldownStore } from './cooldown-store.js';
import { stateKeys } from './keys.js';
import { createRedis, type RedisClient, redisReady } from './redis.js';

const prefix = testPrefix();
let redis: RedisClient;
let other: RedisClient;

beforeAll(async () => {
  redis = createRedis(testRedisUrl());
  other = createRedis(testRedisUrl());
  await Promise.all([redisReady(redis, 2_000), redisReady(other, 2_000)]);
});

afterAll(async () => {
  redis?.disconnect();
  other?.disconnect();
  await deleteKeys(prefix);
});

describe('RedisCooldownStore', () => {
  it('shows a cooldown written by one connection to another, until it ends', async () => {
    const keys = stateKeys(prefix);
    const writer = new RedisCooldownStore(redis, keys);
    const reader = new RedisCooldownStore(other, keys);
    await writer.coolDown('a/gpt', 60_000, '429 upstream_rate_limited: slow down');
    const seen = (await reader.read()).get('a/gpt');
    expect(seen?.coolingForMs).toBeGreaterThan(50_000);
    expect(seen?.coolingForMs).toBeLessThanOrEqual(60_000);
    expect(seen?.lastError).toBe('429 upstream_rate_limited: slow down');
    expect(seen?.lastErrorAt).toBeGreaterThan(Date.now() - 60_000);
    expect((await reader.read()).get('b/gpt')).toBeUndefined();
  });

  it('keeps a longer cooldown when a shorter one follows, and ends it on recovery with the last error kept', async () => {
    const store = new RedisCooldownStore(redis, stateKeys(prefix));
    await store.coolDown('c/gpt', 120_000, '503 upstream_error: first');
    await store.coolDown('c/gpt', 1_000, '500 upstream_error: second');
    const cooling = (await store.read()).get('c/gpt');
    expect(cooling?.coolingForMs).toBeGreaterThan(100_000);
    expect(cooling?.lastError).toBe('500 upstream_error: second');
    await store.recover('c/gpt');
    expect((await store.read()).get('c/gpt')).toMatchObject({ coolingForMs: 0, lastError: '500 upstream_error: second' });
  });

  it('lets a cooldown run out on Redis’s clock', async () => {
    const store = new RedisCooldownStore(redis, stateKeys(prefix));
    await store.coolDown('d/gpt', 30, '504 upstream_timeout: slow');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await store.read()).get('d/gpt')?.coolingForMs).toBe(0);
  });

  it('keeps everything in one hash under the prefix, with an expiry', async () => {
    const keys = stateKeys(prefix);
    const store = new RedisCooldownStore(redis, keys, { retainMs: 3_600_000 });
    await store.coolDown('e/gpt', 1_000, 'x');
    expect(await redis.type(keys.deployments)).toBe('hash');
    expect(keys.deployments.startsWith(`${prefix}:`)).toBe(true);
    expect(await redis.pttl(keys.deployments)).toBeGreaterThan(3_000_000);
  });

  it('skips an entry it cannot read instead of failing the whole read', async () => {
    const keys = stateKeys(prefix);
    await redis.hset(keys.deployments, 'broken/x', 'not json');
    const store = new RedisCooldownStore(redis, keys);
    await store.coolDown('f/gpt', 5_000, 'y');
    const health = await store.read();
    expect(health.has('broken/x')).toBe(false);
    expect(health.get('f/gpt')?.coolingForMs).toBeGreaterThan(0);
  });
});
