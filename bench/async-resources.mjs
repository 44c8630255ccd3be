#!/usr/bin/env node
// Async resources a /v1 request creates, per type — promises, timers, process.nextTick — counted
// with async_hooks inside two builds of the API, side by side against one stand-in upstream:
//   node bench/async-resources.mjs <before main.js> <after main.js> [json-32,sse-8] [requests]
// Each promise is an allocation and a microtask hop, so fewer per request is less work; unlike CPU
// time, the count does not move with the machine's load (the hook slows the servers down, so no
// timing is read here). Each build gets 300 requests to warm up, then `requests` (2,000) counted.
// Builds nothing; run `npx turbo run build` first.
//   node bench/async-resources.mjs --heap <before main.js> <after main.js> [json-32,sse-8] [requests]
// counts instead the bytes of JavaScript heap a request allocates (heap-allocation-hook.mjs: every
// object, string and closure, whatever the machine's load; it moves a little with what V8
// optimises and when it collects, so run it twice).
import { measure } from './load.mjs';
import { markdownTable } from './report.mjs';
import { startBuilds } from './side-by-side.mjs';

const heap = process.argv[2] === '--heap';
const [before, after, scenarioArg, requestsArg] = process.argv.slice(heap ? 3 : 2);
if (!before || !after) {
  console.error('usage: node bench/async-resources.mjs [--heap] <before main.js> <after main.js> [json-32,sse-8] [requests]');
  process.exit(2);
}
const scenarios = (scenarioArg ?? 'json-32,sse-8').split(',');
const requests = Number(requestsArg ?? 2000);
const tag = heap ? 'heap-allocation' : 'async-resources';
const hook = new URL(`./${tag}-hook.mjs`, import.meta.url).pathname;
const { targets, stop } = await startBuilds('async', { before, after }, { nodeArgs: ['--import', hook] });
for (const target of Object.values(targets)) {
  let stderr = '';
  target.child.process.stderr.on('data', (text) => {
    stderr += text;
  });
  /** The totals so far, as the hook prints them on SIGUSR2. */
  target.counts = async () => {
    const from = stderr.length;
    target.child.process.kill('SIGUSR2');
    for (let i = 0; i < 250; i++) {
      const line = new RegExp(`${tag} (.*)\\n`).exec(stderr.slice(from));
      if (line) return JSON.parse(line[1]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${target.name} did not report its counts`);
  };
}

const rows = [];
for (const id of scenarios) {
  const [kind, connections] = id.split('-');
  const load = { stream: kind === 'sse', connections: Number(connections), warmupMs: 0, measureMs: 600_000 };
  const perRequest = {};
  for (const target of Object.values(targets)) {
    await measure(target, { ...load, maxRequests: heap ? 1000 : 300 }); // the heap's count wants V8's optimised code
    const start = await target.counts();
    const run = await measure(target, { ...load, maxRequests: requests });
    const end = await target.counts();
    if (run.errors) throw new Error(`${target.name} ${id}: ${run.errors} errors, first: ${run.firstError}`);
    perRequest[target.name] = Object.fromEntries(
      Object.keys(end).map((type) => [type, ((end[type] ?? 0) - (start[type] ?? 0)) / run.latencies.length]),
    );
  }
  const types = [...new Set([...Object.keys(perRequest.before), ...Object.keys(perRequest.after)])]
    .filter((type) => (perRequest.before[type] ?? 0) >= 0.5 || (perRequest.after[type] ?? 0) >= 0.5)
    .sort();
  for (const type of types) {
    const [b, a] = [perRequest.before[type] ?? 0, perRequest.after[type] ?? 0];
    rows.push([id, type, b.toFixed(2), a.toFixed(2), b > 0 ? (a / b).toFixed(3) : '—']);
  }
}
console.log(
  markdownTable(
    ['scenario', heap ? 'heap' : 'async resource', 'before per request', 'after per request', 'after ÷ before'],
    rows,
    ['l', 'l', 'r', 'r', 'r'],
  ),
);
await stop(0);
