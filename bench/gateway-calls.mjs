#!/usr/bin/env node
// The upstream call layer of two builds, side by side in one process: each build's Gateway (its
// packages/config and packages/providers dist) calls the stand-in upstream (bench/upstream-server.mjs,
// a child process, so its CPU is not counted), a JSON answer read whole or a stream read to its end
// and framed as the API's SSE writer does, and this process's CPU µs per call is read. Rounds run
// ABBA, each build for BENCH_SECONDS; read the median of the rounds' after ÷ before. Both builds
// share the process, so a swing in the machine's load hits both sides of a round alike; what is
// left out is Koa, the middleware and the socket to the client (bench/compare-builds.mjs has those).
// Builds nothing; run `npx turbo run build` in both trees first.
//   node bench/gateway-calls.mjs <before repo root> <after repo root> [rounds] [json-32,sse-8]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startUpstream } from './children.mjs';
import { cpuPerCall } from './cpu.mjs';
import { benchConfig, numberFromEnv, scenariosFromArg } from './env.mjs';
import { API_KEY } from './fixture.mjs';
import { requestBody } from './load.mjs';

const [beforeArg, afterArg, roundsArg, scenarioArg] = process.argv.slice(2);
if (!beforeArg || !afterArg) {
  console.error('usage: node bench/gateway-calls.mjs <before repo root> <after repo root> [rounds] [json-32,sse-8]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 10);
const scenarios = scenariosFromArg(scenarioArg, 'json-32,sse-8');
const measureMs = numberFromEnv('BENCH_SECONDS', 1.5, { positive: true }) * 1000;

const { upstream, port } = await startUpstream('gateway-calls');
const dir = mkdtempSync(join(tmpdir(), 'switchboard-gateway-calls-'));
const configPath = join(dir, 'switchboard.json');
writeFileSync(configPath, JSON.stringify(benchConfig(port, { apiKey: API_KEY })));
const env = { SWITCHBOARD_CONFIG: configPath, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };

/** One build's calls: `complete` and `stream`, each one upstream call made and read as the API does. */
async function build(root) {
  const { loadSettings } = await import(join(resolve(root), 'packages/config/dist/index.js'));
  const { createGateway } = await import(join(resolve(root), 'packages/providers/dist/index.js'));
  const gateway = createGateway(loadSettings(env));
  const ctx = () => ({ signal: new AbortController().signal, requestId: 'bench', onUsage: () => {} });
  const whole = JSON.parse(requestBody('bench/gpt-4o-mini', false));
  const streamed = JSON.parse(requestBody('bench/gpt-4o-mini', true));
  return {
    gateway,
    async complete() {
      const answer = await gateway.complete(whole, ctx());
      if (JSON.stringify(answer).length < 100) throw new Error('short answer');
    },
    async stream() {
      const stream = await gateway.stream(streamed, ctx());
      let text = '';
      // A build with batches is read by batch, as its SSE writer does; an older one chunk by chunk.
      if (stream.batches) for await (const batch of stream.batches) for (const chunk of batch) text += frame(chunk);
      else for await (const chunk of stream.chunks) text += frame(chunk);
      if (text.length < 100) throw new Error('short stream');
    },
  };
}
const frame = (chunk) => `data: ${JSON.stringify(chunk)}\n\n`;

const sides = { before: await build(beforeArg), after: await build(afterArg) };

const run = async (call, connections, ms) => (await cpuPerCall(call, connections, ms)).usPerCall;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log('| scenario | before CPU µs/call | after CPU µs/call | after ÷ before, per round | median |\n|:--|--:|--:|:--|--:|');
for (const scenario of scenarios) {
  const call = (side) => (scenario.stream ? () => sides[side].stream() : () => sides[side].complete());
  for (const side of ['before', 'after']) await run(call(side), scenario.connections, 2000); // warm-up
  const us = { before: [], after: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      us[side].push(await run(call(side), scenario.connections, measureMs));
    }
  }
  const ratios = us.after.map((value, i) => value / us.before[i]);
  console.log(
    `| ${scenario.id} | ${Math.round(median(us.before))} | ${Math.round(median(us.after))} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${median(ratios).toFixed(3)} |`,
  );
}
await Promise.allSettled([sides.before.gateway.registry.close?.(), sides.after.gateway.registry.close?.(), upstream.stop()]);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
