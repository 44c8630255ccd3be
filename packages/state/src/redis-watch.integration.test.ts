import { type PrivateRedis, startPrivateRedis } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { createRedis, isConnectionError, type RedisWatch, redisReady, watchRedis } from './redis.js';

type Line = { level: string; message: string };

/** A log that keeps its lines, as the apps' logger would write them. */
function recordingLog() {
  const lines: Line[] = [];
  const write = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, log: { warn: write('warn'), info: write('info') } };
}

/** A private Redis, a client to it that is ready, and a watch on that client logging to `lines`. */
async function watched(test: (ctx: { server: PrivateRedis; watch: RedisWatch; lines: Line[] }) => Promise<void>) {
  const server = await startPrivateRedis();
  const redis = createRedis(server.url);
  try {
    await redisReady(redis, 2_000);
    const { lines, log } = recordingLog();
    await test({ server, watch: watchRedis(redis, log), lines });
  } finally {
    redis.disconnect();
    await server.kill();
  }
}

const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('watchRedis().report: errors from another connection to the same Redis', () => {
  it('counts a connection reset seen before the watched client noticed as the outage, logged once', async () => {
    await watched(async ({ server, watch, lines }) => {
      const otherwise: Error[] = [];
      // BullMQ's blocking connection saw the reset first; the shared client has not yet.
      watch.report(reset(), (e) => otherwise.push(e), 1_500);
      await server.kill();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(otherwise).toEqual([]);
      expect(lines.filter((l) => l.message === 'redis unavailable')).toHaveLength(1);
      expect(watch.down).toBe(true);
    });
  });

  it('hands a connection reset to the caller when Redis stays up, and any other error at once', async () => {
    await watched(async ({ watch, lines }) => {
      const otherwise: string[] = [];
      watch.report(new Error('ERR unknown command'), (e) => otherwise.push(e.message), 200);
      expect(otherwise).toEqual(['ERR unknown command']);
      watch.report(reset(), (e) => otherwise.push(e.message), 200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(otherwise).toEqual(['ERR unknown command', 'read ECONNRESET']);
      expect(lines).toEqual([]);
    });
  });
});

describe('isConnectionError', () => {
  it('tells a broken connection from a failed command', () => {
    expect(isConnectionError(reset())).toBe(true);
    expect(isConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isConnectionError(new Error('connect ECONNREFUSED 127.0.0.1:6390'))).toBe(true);
    expect(isConnectionError(new Error('ERR wrong number of arguments'))).toBe(false);
  });
});
