import type { RedisClient, StateLog } from './redis.js';

/**
 * Redis's `maxmemory-policy`, read from `INFO memory` (which managed Redis services that rename
 * CONFIG still answer); null when it cannot be read.
 */
export async function evictionPolicy(redis: RedisClient): Promise<string | null> {
  const info = await redis.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

/**
 * Once Redis first answers, warns unless it runs with `noeviction`: under memory pressure any
 * other policy may delete queued jobs or their locks, which BullMQ cannot survive without loss.
 */
export function warnUnlessNoEviction(redis: RedisClient, log: StateLog): void {
  const check = () =>
    evictionPolicy(redis).then(
      (policy) => {
        if (policy && policy !== 'noeviction') {
          log.warn('redis may evict keys: queued messages can be lost', {
            maxmemory_policy: policy,
            fix: 'run RedisClient with maxmemory-policy noeviction (BullMQ requires it)',
          });
        }
      },
      () => {}, // not readable (Redis went away again, INFO refused): nothing to say
    );
  if (redis.status === 'ready') void check();
  else redis.once('ready', () => void check());
}
