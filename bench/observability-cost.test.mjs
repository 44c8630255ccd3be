import { describe, expect, it } from 'vitest';
import { costReport, measureCost } from './observability-cost.mjs';

const scenario = { id: 'json-32', label: 'non-streaming, 32 conns', stream: false, connections: 32 };

/** A run of `requests` requests in one second, `cpuMs` of the gateway's CPU. */
const run = (requests, cpuMs = requests / 10) => ({
  latencies: Array(requests).fill(1),
  ttfbs: [],
  errors: 0,
  firstError: null,
  elapsedMs: 1000,
  cpuMs: { gateway: cpuMs },
});

describe('measureCost', () => {
  it('primes both twins before the rounds, then reads the median of the rounds, the mean of the middle two for an even count', async () => {
    const calls = [];
    // on ÷ off per round: 0.5 (round 1, on first), 0.9, 1.0, 1.1.
    const onRequests = [500, 900, 1000, 1100];
    const perSide = { on: 0, off: 0 };
    const rows = await measureCost(
      { on: { name: 'on' }, off: { name: 'off' } },
      [scenario],
      4,
      async (target) => {
        calls.push(target.name);
        const i = perSide[target.name]++;
        return target.name === 'on' ? run(onRequests[i]) : run(1000);
      },
      async (target) => calls.push(`prime ${target.name}`),
    );
    expect(calls).toEqual(['prime on', 'prime off', 'on', 'off', 'off', 'on', 'on', 'off', 'off', 'on']);
    expect(rows[0].pairs).toEqual([0.5, 0.9, 1, 1.1]);
    expect(rows[0].pairMedian).toBeCloseTo(0.95);
    const text = costReport(rows);
    expect(text).toContain("- json-32, each round's on ÷ off: 0.500, 0.900, 1.000, 1.100");
    expect(text).toMatch(/\| +0\.950 \| +5\.0 % \|/);
  });
});
