#!/usr/bin/env node
// API CPU per accepted hook message, two API builds ABBA: what phase (a) of `npm run bench:hub`
// measures of the API, without the bare floor and the worker, so that a loaded machine can still
// tell two builds apart. A private redis-server; both builds' APIs run side by side on it (each
// with its own key prefix, a generic hook, no worker), and each round sends one build `messages`
// POSTs over keep-alive (`inflight` at a time, the same conversations as phase (a): each message
// the next of one of `conversations`, so most are parked behind the one before), after a warm-up,
// reading that API's CPU (/proc) and the Redis commands (INFO) over them. Prints every round,
// each build's median and spread, and every pair's after ÷ before.
//
//   node bench/hub-accept-cpu.mjs /tmp/before/apps/api/dist/main.js apps/api/dist/main.js [rounds per build, 4]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { benchScratch, Child, freePort, waitForHealth } from './children.mjs';
import { processCpuMs } from './cpu.mjs';
import { nodeArgsFromEnv, numberFromEnv, switchboardEnv } from './env.mjs';
import { RedisCounters, startRedisServer } from './redis-server.mjs';

const [before, after, roundsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node bench/hub-accept-cpu.mjs <before api main.js> <after api main.js> [rounds per build, 4]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 4);
const messages = numberFromEnv('BENCH_HUB_CPU_MESSAGES', 3000, { positive: true, integer: true });
const warmup = numberFromEnv('BENCH_HUB_CPU_WARMUP', 500, { positive: true, integer: true });
const inflight = numberFromEnv('BENCH_HUB_CPU_INFLIGHT', 32, { positive: true, integer: true });
const conversations = numberFromEnv('BENCH_HUB_CPU_CONVERSATIONS', 300, { positive: true, integer: true });
const apiNodeArgs = nodeArgsFromEnv('BENCH_HUB_API_NODE_ARGS');
const HOOK = 'bench';
const TOKEN = 'bench-hook-token-0123456789';

const { tempDir, children, fail } = benchScratch('hub-accept-cpu');

const redisServer = await startRedisServer({ dir: tempDir, onUnexpectedExit: fail });
children.push(redisServer.child);
const configPath = join(tempDir, 'switchboard.json');
writeFileSync(
  configPath,
  JSON.stringify({
    defaultModel: 'bench/gpt-4o-mini',
    providers: { bench: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-bench', models: ['gpt-4o-mini'] } },
    // The reply URL is never called: no worker runs here.
    hooks: { [HOOK]: { type: 'generic', token: TOKEN, replyUrl: 'http://127.0.0.1:9/inbox' } },
  }),
);
const logLevel = process.env.BENCH_HUB_LOG_LEVEL || 'info';

/** Each build's API on a port of its own, its keys under a prefix of its own. */
async function startApi(name, main) {
  const port = await freePort();
  const env = switchboardEnv({ port, configPath, redisUrl: redisServer.url, prefix: `accept-${name}`, logLevel });
  const child = new Child(`api (${name})`, [...apiNodeArgs, resolve(main)], { env, stdout: 'ignore', onUnexpectedExit: fail });
  children.push(child);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(origin, child);
  const pool = new Pool(origin, { connections: inflight, pipelining: 1, keepAliveTimeout: 30_000 });
  return { name, child, pool, sent: 0 };
}
const apis = { before: await startApi('before', before), after: await startApi('after', after) };
const counters = new RedisCounters(redisServer.url);
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** `count` POSTs to one API, `inflight` at a time; each must be answered 202 with a job id. */
async function send(api, count) {
  let left = count;
  const loop = async () => {
    while (left > 0) {
      left--;
      const n = api.sent++;
      const body = JSON.stringify({ text: `m ${n}`, from: `user-${n % conversations}` });
      const response = await api.pool.request({ path: `/hooks/${HOOK}`, method: 'POST', headers, body });
      const text = await response.body.text();
      if (response.statusCode !== 202 || typeof JSON.parse(text)?.id !== 'string') {
        fail(`${api.name}: status ${response.statusCode}: ${text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: inflight }, loop));
}

async function round(name) {
  const api = apis[name];
  await send(api, warmup);
  const cpu0 = processCpuMs(api.child.pid);
  const c0 = await counters.read();
  const started = performance.now();
  await send(api, messages);
  const rate = messages / ((performance.now() - started) / 1000);
  const cpu1 = processCpuMs(api.child.pid);
  const c1 = await counters.read();
  const byCommand = Object.entries(c1.byCommand)
    .map(([command, calls]) => [command, (calls - (c0.byCommand[command] ?? 0)) / messages])
    .filter(([, perMessage]) => perMessage >= 0.005);
  return { name, rate, cpuMs: (cpu1 - cpu0) / messages, commands: (c1.commands - c0.commands) / messages, byCommand };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results = [];
const ratios = [];
for (let r = 0; r < rounds; r++) {
  const pair = {};
  for (const name of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
    const result = await round(name);
    pair[name] = result;
    results.push(result);
    console.error(
      `round ${r + 1} ${name}: API ${result.cpuMs.toFixed(3)} ms CPU/accept, ${result.commands.toFixed(2)} Redis commands/accept, ${Math.round(result.rate)} accepts/s`,
    );
  }
  ratios.push(pair.after.cpuMs / pair.before.cpuMs);
}
for (const name of ['before', 'after']) {
  const of = results.filter((r) => r.name === name);
  const cpu = of.map((r) => r.cpuMs);
  console.log(
    `${name}: API CPU ms/accept median ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), ` +
      `Redis commands/accept ${median(of.map((r) => r.commands)).toFixed(2)} (last round: ${of
        .at(-1)
        .byCommand.map(([c, n]) => `${c} ${n.toFixed(2)}`)
        .join(', ')})`,
  );
}
console.log(
  `after ÷ before per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)} ` +
    `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
);
await Promise.all(Object.values(apis).map((api) => api.pool.destroy()));
// Stopped, not killed: an API under --cpu-prof writes its profile as it exits.
await Promise.all(Object.values(apis).map((api) => api.child.stop()));
process.exit(0);
