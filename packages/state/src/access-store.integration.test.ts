import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessStore, isPairingCode } from './access-store.js';
import { stateKeys } from './keys.js';
import { createRedis, type RedisClient, redisReady } from './redis.js';

const prefix = testPrefix();
const keys = stateKeys(prefix);
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

describe('AccessStore', () => {
  it('gives a person one code while it is pending, and a decision made through one connection is seen by another', async () => {
    const api = new AccessStore(redis, keys);
    const admin = new AccessStore(other, keys);
    const first = await api.requestPairing('team', 'U1', 'Ann', 1_000);
    expect(first.created).toBe(true);
    expect(isPairingCode(first.code)).toBe(true);
    expect(await api.requestPairing('team', 'U1', 'Ann', 2_000)).toEqual({ code: first.code, created: false });
    expect(await admin.pending()).toContainEqual({ code: first.code, hook: 'team', user: 'U1', name: 'Ann', createdAt: 1_000 });

    expect(await admin.decide(first.code, true)).toEqual({ hook: 'team', user: 'U1', notice: null });
    expect(await api.isApproved('team', 'U1')).toBe(true);
    expect(await api.isApproved('other-hook', 'U1')).toBe(false);
    // A code is decided once; the person's next request is a new one only after a revoke.
    expect(await admin.decide(first.code, false)).toBeNull();
    expect((await admin.pending()).map((r) => r.code)).not.toContain(first.code);
    expect(await admin.revoke('team', 'U1')).toBe(true);
    expect(await admin.revoke('team', 'U1')).toBe(false);
    expect(await api.isApproved('team', 'U1')).toBe(false);
  });

  it('lets racing approvals and denials of one code decide it once', async () => {
    const store = new AccessStore(redis, keys);
    const { code } = await store.requestPairing('team', 'U2', null);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.decide(code, i % 2 === 0)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await store.requestPairing('team', 'U2', null)).toMatchObject({ created: true });
  });

  it('drops an expired request from the pending list', async () => {
    const store = new AccessStore(redis, keys);
    const { code } = await store.requestPairing('team', 'U3', null);
    await redis.del(keys.pairingCode(code)); // what its hour's expiry does
    expect((await store.pending()).map((r) => r.code)).not.toContain(code);
    expect(await redis.zscore(keys.pairingPending, code)).toBeNull();
  });

  it('gives no code while too many requests are pending, and again once they expired', async () => {
    const own = stateKeys(`${prefix}:capped`);
    const store = new AccessStore(redis, own, 2);
    const now = 10_000_000;
    expect((await store.requestPairing('team', 'A', null, now)).created).toBe(true);
    expect((await store.requestPairing('team', 'B', null, now)).created).toBe(true);
    expect(await store.requestPairing('team', 'C', null, now)).toEqual({ code: '', created: false });
    // An hour later the two have expired (their index entries are dropped by time): C gets a code.
    expect((await store.requestPairing('team', 'C', null, now + 3_600_001)).created).toBe(true);
  });

  it('says yes once per subject and window', async () => {
    const store = new AccessStore(redis, keys);
    expect(await store.once('denied:team:U9', 60)).toBe(true);
    expect(await store.once('denied:team:U9', 60)).toBe(false);
    expect(await store.once('denied:team:U8', 60)).toBe(true);
  });
});
