import { parseRedisTarget } from '@switchboard/config';
import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { hubKeys } from './keys.js';
import { shardBases, shardedJobId, shardOf, shardOfJob } from './shards.js';

const settings = (shards: number, cluster: boolean) => ({
  keyPrefix: cluster ? '{switchboard}' : 'switchboard',
  redisPrefix: 'switchboard',
  redis: parseRedisTarget(cluster ? 'redis-cluster://10.0.0.1:7000' : 'redis://127.0.0.1:6379', []),
  config: { redis: { shards } },
});

describe('shardBases', () => {
  it('keeps the one base earlier releases wrote when there is one shard', () => {
    expect(shardBases(settings(1, false))).toEqual(['switchboard']);
    expect(shardBases(settings(1, true))).toEqual(['{switchboard}']);
  });

  it('gives each shard on a cluster a hash tag of its own, in its own sixteenth of the slots', () => {
    const bases = shardBases(settings(16, true));
    expect(bases).toHaveLength(16);
    for (const [n, base] of bases.entries()) {
      expect(base).toMatch(new RegExp(`^\\{switchboard:${n}(:\\d+)?\\}$`));
      const slot = calculateSlot(hubKeys(base).order('support:bob'));
      expect(Math.floor(slot / 1024)).toBe(n);
    }
  });

  it('puts as many shards on each of three masters with equal slot ranges', () => {
    const masterOf = (base: string) => Math.floor((calculateSlot(base) * 3) / 16_384);
    const perMaster = [0, 0, 0];
    for (const base of shardBases(settings(16, true))) perMaster[masterOf(base)]!++;
    expect(perMaster).toEqual([6, 5, 5]);
  });

  it('numbers the shards of a single Redis without tags', () => {
    expect(shardBases(settings(3, false))).toEqual(['switchboard:0', 'switchboard:1', 'switchboard:2']);
  });
});

describe('shardOf', () => {
  it('maps a conversation to the same shard every time, and conversations over all shards', () => {
    expect(shardOf('support:bob', 16)).toBe(shardOf('support:bob', 16));
    expect(shardOf('support:bob', 1)).toBe(0);
    const used = new Set(Array.from({ length: 300 }, (_, i) => shardOf(`ops:user-${i}`, 16)));
    expect(used.size).toBe(16);
  });
});

describe('sharded job ids', () => {
  it('leaves ids alone with one shard and names the shard with several', () => {
    expect(shardedJobId('ops-3f2a', 0, 1)).toBe('ops-3f2a');
    expect(shardedJobId('ops-3f2a', 7, 16)).toBe('ops-3f2a~7');
    expect(shardOfJob('ops-3f2a~7', 16)).toBe(7);
  });

  it('reads an id that names no shard of the deployment as shard 0', () => {
    for (const id of ['ops-3f2a', 'ops-3f2a~16', 'ops-3f2a~x', 'ops-3f2a~07', 'ops~3~']) expect(shardOfJob(id, 16)).toBe(0);
  });
});
