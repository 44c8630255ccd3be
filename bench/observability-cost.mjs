// What observability costs on /v1: the same gateway started twice in one run, with everything on
// and everything off, measured in ABBA order on the same scenarios, and the throughput ratio.
import { summarize } from './load.mjs';
import { markdownTable, median } from './report.mjs';

/** The bound: with observability on, /v1 throughput may drop by at most this share. */
export const MAX_COST_SHARE = 0.05;

/**
 * The config each side of the comparison adds to the gateway's. A switch that must be measured
 * goes in both: on in `on`, off in `off`.
 */
export const COST_SWITCHES = {
  on: { metrics: { enabled: true }, usage: { enabled: true } },
  off: { metrics: { enabled: false }, usage: { enabled: false } },
};

/** The scenarios compared (ids of gateway-bench's SCENARIOS); BENCH_COST_SCENARIOS overrides. */
export const COST_SCENARIOS = ['json-32', 'sse-8'];

/**
 * Runs each scenario against `on` and `off` for `rounds` rounds, alternating which goes first.
 * Before the first round of each scenario both twins are primed (`prime`, not measured): a fresh
 * gateway under load took 5–6 s and more to reach its speed at load 7–8 (bench/cost-transient.mjs, 2026-11-27),
 * far longer than a run's warm-up, so the twin that went first in round 1 was measured cold.
 * @param {{ on: object, off: object }} targets load targets (load.mjs), one per gateway
 * @param {{ id: string, stream: boolean, connections: number }[]} scenarios
 * @param {(target: object, scenario: object) => Promise<import('./load.mjs').Run>} run
 * @param {(target: object, scenario: object) => Promise<unknown>} [prime]
 */
export async function measureCost(targets, scenarios, rounds, run, prime) {
  const rows = [];
  for (const scenario of scenarios) {
    const runs = { on: [], off: [] };
    if (prime) {
      for (const side of ['on', 'off']) {
        process.stderr.write(`bench: cost priming ${scenario.id} → observability ${side} (not measured)\n`);
        await prime(targets[side], scenario);
      }
    }
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
      for (const side of order) {
        process.stderr.write(`bench: cost round ${round}/${rounds} ${scenario.id} → observability ${side} … `);
        const result = await run(targets[side], scenario);
        runs[side].push(result);
        process.stderr.write(
          `${Math.round((result.latencies.length / result.elapsedMs) * 1000)} req/s, ${result.errors} errors\n`,
        );
      }
    }
    // Each round's on ÷ off: the two ran seconds apart, so a swing in the machine's load hits both.
    const rps = (run) => run.latencies.length / run.elapsedMs;
    const cpu = (run) => (run.cpuMs ? run.cpuMs.gateway / run.latencies.length : Number.NaN);
    const pairs = runs.on.map((run, i) => rps(run) / rps(runs.off[i]));
    const cpuPairs = runs.on.map((run, i) => cpu(run) / cpu(runs.off[i]));
    rows.push({
      scenario,
      on: summarize(runs.on),
      off: summarize(runs.off),
      pairs,
      pairMedian: median(pairs),
      cpuPairMedian: median(cpuPairs),
    });
  }
  return rows;
}

/** The table and one verdict line per scenario. */
export function costReport(rows) {
  const table = markdownTable(
    [
      'scenario',
      'off rps',
      'on rps',
      'on ÷ off',
      'round median',
      'cost',
      'off p50',
      'on p50',
      'CPU µs/req off',
      'on',
      'CPU cost',
      'bound',
    ],
    rows.map(({ scenario, on, off, pairMedian, cpuPairMedian }) => {
      const ratio = pairMedian;
      const cpuOff = off.cpuUsPerRequest?.gateway ?? Number.NaN;
      const cpuOn = on.cpuUsPerRequest?.gateway ?? Number.NaN;
      const errors = on.errors + off.errors;
      return [
        errors ? `${scenario.label} ⚠ ${errors} errors` : scenario.label,
        Math.round(off.rps).toLocaleString('en-US'),
        Math.round(on.rps).toLocaleString('en-US'),
        (on.rps / off.rps).toFixed(3),
        ratio.toFixed(3),
        `${((1 - ratio) * 100).toFixed(1)} %`,
        `${off.latency.p50.toFixed(2)} ms`,
        `${on.latency.p50.toFixed(2)} ms`,
        Number.isFinite(cpuOff) ? Math.round(cpuOff).toString() : 'n/a',
        Number.isFinite(cpuOn) ? Math.round(cpuOn).toString() : 'n/a',
        Number.isFinite(cpuPairMedian) ? `${((cpuPairMedian - 1) * 100).toFixed(1)} %` : 'n/a',
        1 - ratio <= MAX_COST_SHARE ? `met (≤ ${MAX_COST_SHARE * 100} %)` : `NOT met (> ${MAX_COST_SHARE * 100} %)`,
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  // Every round's on ÷ off, so the spread shows beside the median (odd rounds ran on first).
  const rounds = rows.map(
    ({ scenario, pairs }) => `- ${scenario.id}, each round's on ÷ off: ${pairs.map((pair) => pair.toFixed(3)).join(', ')}`,
  );
  return [
    'Observability cost: the same gateway with metrics and usage on (default) and off, in one run, ABBA;',
    'round median = the median of each round’s on ÷ off; cost = 1 − round median; CPU µs/req pooled; CPU cost = the median of each round’s',
    'on ÷ off CPU per request, − 1 (from /proc, 10 ms resolution):',
    '',
    table,
    '',
    ...rounds,
  ].join('\n');
}
