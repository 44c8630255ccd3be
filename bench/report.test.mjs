import { describe, expect, it } from 'vitest';
import { summarize } from './load.mjs';
import { floorGoals } from './report.mjs';

const SCENARIOS = {
  'json-1': { id: 'json-1', label: 'non-streaming, 1 conn', stream: false, connections: 1 },
  'json-32': { id: 'json-32', label: 'non-streaming, 32 conns', stream: false, connections: 32 },
  'sse-8': { id: 'sse-8', label: 'streaming, 8 conns', stream: true, connections: 8 },
};

/** One round's run: `requests` requests of `latencyMs` each in one second, `cpuMs` of the server's CPU. */
function run(requests, { latencyMs = 1, cpuMs = requests / 10 } = {}) {
  return {
    latencies: Array(requests).fill(latencyMs),
    ttfbs: [],
    errors: 0,
    firstError: null,
    elapsedMs: 1000,
    cpuMs: { gateway: cpuMs },
  };
}

/** A row as gateway-bench builds it: each target's runs pooled in `results`, one result a round in `rounds`. */
function row(id, runsByTarget) {
  const names = Object.keys(runsByTarget);
  return {
    scenario: SCENARIOS[id],
    results: Object.fromEntries(names.map((name) => [name, summarize(runsByTarget[name])])),
    rounds: Object.fromEntries(names.map((name) => [name, runsByTarget[name].map((one) => summarize([one]))])),
  };
}

/** json-32 (or sse-8) with the Koa floor's and the gateway's requests per round. */
function throughput(id, koa, gateway) {
  return row(id, {
    direct: koa.map((n) => run(n * 5)),
    bare: koa.map((n) => run(n * 2)),
    koa: koa.map((n) => run(n)),
    gateway: gateway.map((n) => run(n)),
  });
}

const goalLine = (rows, word) =>
  floorGoals(rows)
    .split('\n')
    .find((line) => line.includes(word));

describe('floorGoals', () => {
  it('passes the throughput goal on the median of the paired rounds where the pooled figure fails it', () => {
    // Rounds 0.50, 0.80, 0.80 × the floor; the first round's 10,000 requests outweigh the others
    // when pooled: 6,600 ÷ 12,000 = 0.55.
    const text = goalLine([throughput('json-32', [10_000, 1_000, 1_000], [5_000, 800, 800])], 'throughput');
    expect(text).toMatch(/^PASS {2}throughput/);
    expect(text).toContain('0.80 ×, the median of 3 paired rounds (0.50 ×, 0.80 ×, 0.80 ×); pooled 0.55 ×');
  });

  it('fails the throughput goal on the median where the pooled figure would pass it', () => {
    // Rounds 0.90, 0.70, 0.70; pooled 10,400 ÷ 12,000 = 0.87.
    const text = goalLine([throughput('json-32', [10_000, 1_000, 1_000], [9_000, 700, 700])], 'throughput');
    expect(text).toMatch(/^FAIL {2}throughput/);
    expect(text).toContain('0.70 ×, the median of 3 paired rounds (0.90 ×, 0.70 ×, 0.70 ×); pooled 0.87 ×');
  });

  it('reads the streaming goal from the rounds too', () => {
    const text = goalLine([throughput('sse-8', [2_000, 1_000, 1_000, 1_000], [1_000, 800, 900, 950])], 'streaming');
    // Rounds 0.50, 0.80, 0.90, 0.95: median (0.80 + 0.90) / 2 = 0.85; pooled 3,650 ÷ 5,000 = 0.73.
    expect(text).toMatch(/^PASS {2}streaming/);
    expect(text).toContain('0.85 ×, the median of 4 paired rounds (0.50 ×, 0.80 ×, 0.90 ×, 0.95 ×); pooled 0.73 ×');
  });

  it("reads the latency goal as the median of each round's added p50 against the floor's", () => {
    // direct 0.1 ms; the floor adds 0.4 ms every round, the gateway 0.5, 0.9, 0.56 ms: 1.25, 2.25, 1.40 ×.
    const rounds = [0.6, 1.0, 0.66];
    const single = row('json-1', {
      direct: rounds.map(() => run(1000, { latencyMs: 0.1 })),
      koa: rounds.map(() => run(1000, { latencyMs: 0.5 })),
      gateway: rounds.map((p50) => run(1000, { latencyMs: p50 })),
    });
    const text = goalLine([single], 'latency');
    expect(text).toMatch(/^PASS {2}latency/);
    expect(text).toContain('1.40 ×, the median of 3 paired rounds (1.25 ×, 2.25 ×, 1.40 ×)');
  });

  it("prints every round's CPU per request, gateway ÷ Koa floor, below the goal", () => {
    const wide = row('json-32', {
      direct: [run(5000), run(5000)],
      bare: [run(2000), run(2000)],
      koa: [run(1000, { cpuMs: 200 }), run(1000, { cpuMs: 300 })],
      gateway: [run(800, { cpuMs: 240 }), run(800, { cpuMs: 300 })],
    });
    const lines = floorGoals([wide]).split('\n');
    const at = lines.findIndex((line) => line.includes('throughput'));
    // 300 ÷ 200 = 1.50 and 375 ÷ 300 = 1.25 µs a request.
    expect(lines[at + 1]).toBe(
      '      CPU µs per request, gateway ÷ Koa floor: 1.38, the median of 2 paired rounds (1.50, 1.25); pooled 1.35 (338 vs 250 µs pooled)',
    );
  });

  it('says one round when the bench ran one, and marks a goal VOID when a round had errors', () => {
    const one = throughput('json-32', [1_000], [800]);
    expect(goalLine([one], 'throughput')).toContain('0.80 × (one round)');
    one.results.gateway.errors = 3;
    expect(goalLine([one], 'throughput')).toMatch(/^VOID/);
  });
});
