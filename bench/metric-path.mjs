#!/usr/bin/env node
// The metrics a /v1 request updates, alone: CPU ns per request of `v1Recorder` (request counter,
// duration histogram, time to first token on every other one) and the gateway observer's token
// counters, for two builds in one process, ABBA rounds. Builds nothing; run `npx turbo run build`
// in both first:
//   node bench/metric-path.mjs /tmp/before . [rounds]
import { resolve } from 'node:path';

const [beforeRoot, afterRoot = '.', roundsArg] = process.argv.slice(2);
if (!beforeRoot) {
  console.error('usage: node bench/metric-path.mjs <before checkout> [after checkout] [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 8);
const REQUESTS = 500_000;
const deployment = { id: 'bench/gpt-4o-mini', provider: 'bench' };

/** One build's per-request metric path, on a fresh registry. */
async function metricPath(root) {
  const { Metrics, gatewayMetrics } = await import(resolve(root, 'packages/metrics/dist/index.js'));
  const { v1Recorder } = await import(resolve(root, 'apps/api/dist/middleware/v1-metrics.js'));
  const metrics = new Metrics('api');
  const record = v1Recorder(metrics, [{ id: deployment.id, owned_by: deployment.provider }]);
  const observer = gatewayMetrics(metrics);
  return (i) => {
    observer.usage(deployment, 12, 7);
    record({
      route: '/v1/chat/completions',
      model: deployment.id,
      status: 200,
      seconds: 0.002 + (i & 15) * 0.002,
      firstTokenSeconds: i & 1 ? 0.001 : undefined,
    });
  };
}

const paths = { before: await metricPath(beforeRoot), after: await metricPath(afterRoot) };
for (const path of Object.values(paths)) for (let i = 0; i < 100_000; i++) path(i); // warm-up
const ns = { before: [], after: [] };
for (let round = 0; round < rounds; round++) {
  for (const side of round % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
    const path = paths[side];
    const start = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) path(i);
    const { user, system } = process.cpuUsage(start);
    ns[side].push(((user + system) * 1000) / REQUESTS);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log('| build | CPU ns per request, per round | median |\n|:--|:--|--:|');
for (const side of ['before', 'after'])
  console.log(`| ${side} | ${ns[side].map((v) => Math.round(v)).join(' ')} | ${Math.round(median(ns[side]))} |`);
console.log(`\nafter ÷ before (medians): ${(median(ns.after) / median(ns.before)).toFixed(3)}`);
