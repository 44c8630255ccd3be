import { describe, expect, it } from 'vitest';
import { capacityLines } from './hub-report.mjs';

describe('capacityLines', () => {
  it("turns (c)'s CPU per message into messages/s per core and the Redis-bound ceiling of 1, 3 and 10 masters", () => {
    // 1,000 messages: Redis 500 ms (0.5 ms each: 2,000/s per core), worker 1,000 ms (1,000/s), API 250 ms on accept (4,000/s).
    const hub = {
      endToEnd: { messages: 1000, cpuMs: { redis: 500, worker: 1000, api: 300 } },
      accept: { messages: 1000, cpuMs: { api: 250 } },
    };
    const text = capacityLines(hub, 16);
    expect(text).toContain('one Redis core: 2,000 messages/s; one worker core: 1,000; one API core (accepts): 4,000');
    const rows = text.split('\n').filter((line) => /^\| +\d/.test(line));
    const cells = rows.map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
    expect(cells).toEqual([
      ['1', '1 (all)', '2,000', '2.0', '0.5'],
      ['3', '6/16 = 37.5 %', '5,333', '5.3', '1.3'],
      ['10', '2/16 = 12.5 %', '16,000', '16.0', '4.0'],
    ]);
  });
});
