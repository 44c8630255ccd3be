#!/usr/bin/env node
// Two builds of the API side by side, for a before/after figure that survives a noisy machine:
//   node bench/compare-builds.mjs <before main.js> <after main.js> [rounds] [scenarios]
// e.g. git worktree add /tmp/before <commit> && (cd /tmp/before && npm install && npx turbo run build)
//      node bench/compare-builds.mjs /tmp/before/apps/api/dist/main.js apps/api/dist/main.js 8
// Both get the same stand-in upstream and config; each round measures one then the other
// (ABBA), 2 s each, and reads each server's own CPU µs per request from /proc. Two runs seconds
// apart see the same machine, so the median of the rounds' after ÷ before is steady where
// absolute figures swing by a quarter. Builds nothing; run `npx turbo run build` first.
import { processCpuMs } from './cpu.mjs';
import { numberFromEnv, scenariosFromArg } from './env.mjs';
import { measure } from './load.mjs';
import { startBuilds } from './side-by-side.mjs';

const [before, after, roundsArg, scenarioArg] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node bench/compare-builds.mjs <before main.js> <after main.js> [rounds] [json-32,sse-8,json-1]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 8);
const scenarios = scenariosFromArg(scenarioArg, 'json-32,sse-8,json-1');
const measureMs = numberFromEnv('BENCH_SECONDS', 2, { positive: true }) * 1000;
const { targets, stop } = await startBuilds('compare', { before, after });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`| scenario | before CPU µs/req | after CPU µs/req | after ÷ before, per round | median |\n|:--|--:|--:|:--|--:|`);
for (const scenario of scenarios) {
  const us = { before: [], after: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const target = targets[side];
      const run = await measure(target, {
        stream: scenario.stream,
        connections: scenario.connections,
        warmupMs: 500,
        measureMs,
        maxRequests: 1_000_000,
        cpuProbe: () => ({ gateway: processCpuMs(target.pid) }),
      });
      if (run.errors) throw new Error(`${side} ${scenario.id}: ${run.errors} errors, first: ${run.firstError}`);
      us[side].push((run.cpuMs.gateway * 1000) / run.latencies.length);
    }
  }
  const ratios = us.after.map((value, i) => value / us.before[i]);
  console.log(
    `| ${scenario.id} | ${Math.round(median(us.before))} | ${Math.round(median(us.after))} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${median(ratios).toFixed(3)} |`,
  );
}
await stop(0);
