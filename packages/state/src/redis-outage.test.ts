import { describe, expect, it } from 'vitest';
import { OutageLog } from './redis-outage.js';

describe('OutageLog', () => {
  it('says an outage began at its first failure, and nothing for the next ones within a minute', () => {
    const log = new OutageLog();
    expect(log.failed('ECONNREFUSED', 0)).toEqual({
      level: 'warn',
      message: 'redis unavailable',
      meta: { error: 'ECONNREFUSED' },
    });
    for (let t = 200; t < 60_000; t += 200) expect(log.failed('ECONNREFUSED', t)).toBeNull();
  });

  it('repeats at most once a minute, with the failures counted since the last line', () => {
    const log = new OutageLog();
    log.failed('ECONNREFUSED', 0);
    const lines = [];
    for (let t = 500; t <= 150_000; t += 500) {
      const line = log.failed('ECONNREFUSED', t);
      if (line) lines.push({ t, ...line });
    }
    expect(lines).toEqual([
      {
        t: 60_000,
        level: 'warn',
        message: 'redis still unavailable',
        meta: { error: 'ECONNREFUSED', failures: 120, down_seconds: 60 },
      },
      {
        t: 120_000,
        level: 'warn',
        message: 'redis still unavailable',
        meta: { error: 'ECONNREFUSED', failures: 120, down_seconds: 120 },
      },
    ]);
  });

  it('says once that Redis is back, with how long it was away, and then starts afresh', () => {
    const log = new OutageLog();
    expect(log.recovered(0)).toBeNull();
    log.failed('ECONNREFUSED', 1_000);
    log.failed('ECONNREFUSED', 2_000);
    expect(log.recovered(4_500)).toEqual({ level: 'info', message: 'redis is back', meta: { down_seconds: 3.5, failures: 2 } });
    expect(log.recovered(5_000)).toBeNull();
    expect(log.failed('ETIMEDOUT', 9_000)?.message).toBe('redis unavailable');
  });
});
