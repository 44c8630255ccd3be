import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const testRedisUrl = (): string => process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A key prefix of its own for one test run: `test-<uuid>`. */
export function testPrefix(): string {
  return `test-${randomUUID()}`;
}

/** Deletes every key under `prefix` (SCAN, never KEYS), so other users of this Redis are untouched. */
export async function deleteKeys(prefix: string, url = testRedisUrl()): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => {}); // a Redis that is away (in outage tests) has nothing to clean
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    return deleted;
  } finally {
    redis.disconnect();
  }
  return deleted;
}
