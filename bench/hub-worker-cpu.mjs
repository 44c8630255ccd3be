#!/usr/bin/env node
// Worker CPU per hook message, two worker builds ABBA: what (c) of `npm run bench:hub` measures of
// the worker, without the API and the bare floor, so that a loaded machine can still tell two
// builds apart. A private redis-server, the stand-in upstream and a reply receiver; this process
// accepts the messages itself (hub acceptMessage, the API's call) in a closed loop, `inflight`
// loops each sending a message of one of its own conversations and waiting for its reply POST.
// Each round starts one build's worker, warms it up, then reads the worker's CPU (/proc) and the
// Redis commands (INFO) over `messages` messages, and stops it. Prints every round, each build's
// median and every pair's after ÷ before.
//
//   node bench/hub-worker-cpu.mjs /tmp/before/apps/worker/dist/main.js apps/worker/dist/main.js [rounds]
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { loadSettings } from '../packages/config/dist/index.js';
import { acceptMessage, createHub } from '../packages/hub/dist/index.js';
import { benchScratch, Child, readPort } from './children.mjs';
import { processCpuMs } from './cpu.mjs';
import { nodeArgsFromEnv, numberFromEnv, switchboardEnv } from './env.mjs';
import { startReceiver } from './receiver.mjs';
import { RedisCounters, startRedisServer } from './redis-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [before, after, roundsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node bench/hub-worker-cpu.mjs <before worker main.js> <after worker main.js> [rounds per build, 3]');
  process.exit(2);
}
/**
 * A build is its worker's main.js, with options after commas: `whole` runs the hook with
 * `stream: false` (to price streaming), `c=N` the worker with concurrency N.
 */
const parseBuild = (arg) => {
  const [main, ...modes] = arg.split(',');
  const c = modes.find((mode) => mode.startsWith('c='));
  return { main: resolve(main), whole: modes.includes('whole'), concurrency: c ? Number(c.slice(2)) : undefined };
};
const builds = { before: parseBuild(before), after: parseBuild(after) };
const rounds = Number(roundsArg ?? 3);
const messages = numberFromEnv('BENCH_HUB_CPU_MESSAGES', 3000, { positive: true, integer: true });
const warmup = numberFromEnv('BENCH_HUB_CPU_WARMUP', 500, { positive: true, integer: true });
const inflight = numberFromEnv('BENCH_HUB_CPU_INFLIGHT', 32, { positive: true, integer: true });
const concurrency = numberFromEnv('BENCH_HUB_CONCURRENCY', 16, { positive: true, integer: true });
const workerNodeArgs = nodeArgsFromEnv('BENCH_HUB_WORKER_NODE_ARGS');
const HOOK = 'bench';
const INBOX = '/inbox';

const { tempDir, children, fail } = benchScratch('hub-worker-cpu');

const redisServer = await startRedisServer({ dir: tempDir, onUnexpectedExit: fail });
children.push(redisServer.child);
const upstream = new Child('upstream', [join(here, 'upstream-server.mjs')], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
  stdout: 'pipe',
  onUnexpectedExit: fail,
});
children.push(upstream);
const upstreamPort = await readPort(upstream);
/** job id → resolve of the loop waiting for it; ids delivered before their loop waited. */
const waiting = new Map();
const early = new Set();
const receiver = await startReceiver({
  path: INBOX,
  hook: HOOK,
  onDelivery: ({ id, problem }) => {
    if (problem) fail(`bad delivery: ${problem}`);
    const done = waiting.get(id);
    if (done) {
      waiting.delete(id);
      done();
    } else early.add(id);
  },
});
const config = (whole, workers) => ({
  defaultModel: 'bench/gpt-4o-mini',
  providers: {
    bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, apiKey: 'sk-bench', models: ['gpt-4o-mini'] },
  },
  hooks: {
    [HOOK]: {
      type: 'generic',
      token: 'bench-hook-token-0123456789',
      replyUrl: `http://127.0.0.1:${receiver.port}${INBOX}`,
      ...(whole ? { stream: false } : {}),
    },
  },
  worker: { concurrency: workers, keepJobs: 10_000 },
});
/** The worker's environment: the config streamed (the default) or whole. */
const envOf = ({ whole, concurrency: workers = concurrency }) => {
  const configPath = join(tempDir, `${whole ? 'whole' : 'streamed'}-${workers}.json`);
  writeFileSync(configPath, JSON.stringify(config(whole, workers)));
  const logLevel = process.env.BENCH_HUB_LOG_LEVEL || 'info';
  return switchboardEnv({ configPath, redisUrl: redisServer.url, prefix: 'cpu', logLevel });
};
const envs = { before: envOf(builds.before), after: envOf(builds.after) };
const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
const hub = createHub(redis, loadSettings(envs.after));
const counters = new RedisCounters(redisServer.url);

let sent = 0;
/** `count` messages, `inflight` loops each owning its conversations (one of a conversation in flight at a time). */
async function closedLoop(count) {
  let left = count;
  const loop = async (l) => {
    for (let turn = 0; left > 0; turn++) {
      left--;
      const n = sent++;
      const from = `user-${l}-${turn % 6}`;
      const { jobId } = await acceptMessage(hub, HOOK, {
        action: 'chat',
        text: `message ${n}`,
        from,
        conversation: from,
        dedupeKey: null,
        replyTo: {},
      });
      if (early.delete(jobId)) continue;
      await new Promise((done, timeout) => {
        const timer = setTimeout(() => timeout(new Error(`message ${jobId} not delivered within 20 s`)), 20_000);
        waiting.set(jobId, () => {
          clearTimeout(timer);
          done();
        });
      });
    }
  };
  await Promise.all(Array.from({ length: inflight }, (_, l) => loop(l)));
}

/** One round: the build's worker started, warmed up, measured over `messages`, stopped. */
async function round(name) {
  const worker = new Child(`worker (${name})`, [...workerNodeArgs, builds[name].main], {
    env: envs[name],
    stdout: 'ignore',
    onUnexpectedExit: fail,
  });
  await closedLoop(warmup);
  const cpu0 = processCpuMs(worker.pid);
  const c0 = await counters.read();
  const started = performance.now();
  await closedLoop(messages);
  const rate = messages / ((performance.now() - started) / 1000);
  const cpu1 = processCpuMs(worker.pid);
  const c1 = await counters.read();
  await worker.stop();
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
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  const pair = {};
  for (const name of order) {
    const result = await round(name);
    pair[name] = result;
    results.push(result);
    console.error(
      `round ${r + 1} ${name}: worker ${result.cpuMs.toFixed(3)} ms CPU/msg, ${result.commands.toFixed(2)} Redis commands/msg, ${Math.round(result.rate)} delivered/s`,
    );
  }
  pair.ratio = pair.after.cpuMs / pair.before.cpuMs;
  results.push(pair);
}
if (process.env.BENCH_HUB_CPU_COMMANDS) {
  for (const name of ['before', 'after']) {
    const last = results.findLast((r) => r.name === name);
    console.log(
      `${name}, Redis commands per message by name (last round): ${last.byCommand.map(([c, n]) => `${c} ${n.toFixed(2)}`).join(', ')}`,
    );
  }
}
const of = (name) => results.filter((r) => r.name === name);
const ratios = results.filter((r) => r.ratio !== undefined).map((r) => r.ratio);
for (const name of ['before', 'after']) {
  const cpu = of(name).map((r) => r.cpuMs);
  console.log(
    `${name}: worker CPU ms/msg median ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), ` +
      `Redis commands/msg ${median(of(name).map((r) => r.commands)).toFixed(2)}`,
  );
}
console.log(
  `after ÷ before per round: ${ratios.map((r) => r.toFixed(3)).join(', ')}; median ${median(ratios).toFixed(3)} ` +
    `(${messages} messages a round, ${inflight} in flight, concurrency ${concurrency})`,
);
await hub.close();
redis.disconnect();
await counters.close?.();
await receiver.close();
await upstream.stop();
await redisServer.child.stop();
process.exit(0);
