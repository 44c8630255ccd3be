#!/usr/bin/env node
// `npm run bench:hub`: what Switchboard's hook path (apps/api → BullMQ → apps/worker → model →
// reply POST) costs against bare BullMQ (queue.add → a Worker with a no-op processor), both on a
// private redis-server started here. The same phases for each: (a) accepts/s with no worker
// running, (b) that backlog drained by one worker, (c) end-to-end with both running (closed
// loop), (d) one message at a time. Then it checks that every accepted message was delivered
// once, in order per conversation, and prints markdown tables and the targets. The recovery phase
// (hub-recovery.mjs) SIGKILLs a worker holding messages and times kill → the other worker's last
// delivery; the live-reply scenario (hub-live.mjs) follows. Exits 0 whatever
// the targets say; 1 when a message was lost, duplicated or reordered, or the bench itself broke
// (errors, a crash, a time-out).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { Child, freePort, readPort, waitForHealth } from './children.mjs';
import { nodeArgsFromEnv, numberFromEnv, switchboardEnv } from './env.mjs';
import { API_KEY } from './fixture.mjs';
import { liveScenario } from './hub-live.mjs';
import { liveReport } from './hub-live-report.mjs';
import { acceptPhase, Conversations, check, Deliveries, drainPhase, endToEndPhase, Probe, settle } from './hub-load.mjs';
import { mediaReport, mediaScenario } from './hub-media.mjs';
import { recoveryReport, recoveryScenario } from './hub-recovery.mjs';
import {
  capacityLines,
  checkFailed,
  commandsTable,
  comparisonTable,
  correctnessTable,
  memoryLines,
  PHASES,
  phaseNotes,
  targets,
} from './hub-report.mjs';
import { toolsOptions, toolsReport, toolsScenario } from './hub-tools.mjs';
import { startReceiver } from './receiver.mjs';
import { RedisCounters, startRedisServer } from './redis-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const apiMain = join(here, '..', 'apps', 'api', 'dist', 'main.js');
const workerMain = join(here, '..', 'apps', 'worker', 'dist', 'main.js');

const count = (name, fallback) => numberFromEnv(name, fallback, { positive: true, integer: true });
const options = {
  messages: count('BENCH_HUB_MESSAGES', 10_000),
  endToEndMessages: count('BENCH_HUB_E2E_MESSAGES', 10_000),
  warmup: count('BENCH_HUB_WARMUP', 1000),
  concurrency: count('BENCH_HUB_CONCURRENCY', 16),
  inflight: count('BENCH_HUB_INFLIGHT', 32),
  endToEndInflight: count('BENCH_HUB_E2E_INFLIGHT', 32),
  oneInFlightMessages: count('BENCH_HUB_LATENCY_MESSAGES', 300),
  conversations: count('BENCH_HUB_CONVERSATIONS', 200),
  /** Switchboard's `worker.keepJobs`: completed jobs kept (the memory bound). */
  keepJobs: count('BENCH_HUB_KEEP_JOBS', 10_000),
  /** After (d), Switchboard only: this long of closed-loop messages, Redis used memory read after each batch. */
  soakMs: numberFromEnv('BENCH_HUB_SOAK_SECONDS', 0) * 1000,
  phaseTimeoutMs: numberFromEnv('BENCH_HUB_PHASE_TIMEOUT_SECONDS', 120, { positive: true }) * 1000,
  deliveryTimeoutMs: numberFromEnv('BENCH_HUB_DELIVERY_TIMEOUT_SECONDS', 10, { positive: true }) * 1000,
  settleTimeoutMs: numberFromEnv('BENCH_HUB_SETTLE_SECONDS', 30, { positive: true }) * 1000,
  quietMs: numberFromEnv('BENCH_HUB_QUIET_SECONDS', 1) * 1000,
  logLevel: process.env.BENCH_HUB_LOG_LEVEL || 'info',
  apiNodeArgs: nodeArgsFromEnv('BENCH_HUB_API_NODE_ARGS'),
  workerNodeArgs: nodeArgsFromEnv('BENCH_HUB_WORKER_NODE_ARGS'),
  /** `live`, `recovery`, `media`, `tools`: only that scenario; `pipeline`: bare and Switchboard's phases only; `hub`: all but live; empty: all. */
  only: process.env.BENCH_HUB_ONLY || '',
  live: {
    messages: count('BENCH_HUB_LIVE_MESSAGES', 120),
    warmup: count('BENCH_HUB_LIVE_WARMUP', 16),
    inflight: count('BENCH_HUB_LIVE_INFLIGHT', 16),
    concurrency: count('BENCH_HUB_LIVE_CONCURRENCY', 16),
    ttftMs: numberFromEnv('BENCH_HUB_LIVE_TTFT_MS', 300),
    tokenMs: numberFromEnv('BENCH_HUB_LIVE_TOKEN_MS', 25),
    intervalMs: count('BENCH_HUB_LIVE_INTERVAL_MS', 1000),
  },
  media: {
    messages: count('BENCH_HUB_MEDIA_MESSAGES', 1000),
    warmup: count('BENCH_HUB_MEDIA_WARMUP', 100),
    batch: count('BENCH_HUB_MEDIA_BATCH', 100),
  },
};
/**
 * What a minimal real bot on BullMQ keeps of finished jobs: Switchboard's retention (24 h, at most
 * `keepJobs` completed, failed kept a week), as BullMQ's own job options, so the floor pays for
 * the same bound (without it the bare queue keeps every job and does no removals).
 */
const BARE_JOB_OPTIONS = {
  removeOnComplete: { age: 86_400, count: options.keepJobs },
  removeOnFail: { age: 7 * 86_400, count: options.keepJobs },
};

const HOOK = 'bench';
const HOOK_TOKEN = 'bench-hook-token-0123456789';
const INBOX = '/inbox';

const children = [];
let redisServer = null;
const cleanups = [];
const tempDir = mkdtempSync(join(tmpdir(), 'switchboard-hub-bench-'));
let exiting = false;

process.on('SIGINT', () => fail('interrupted', 130));
process.on('SIGTERM', () => fail('terminated', 143));
process.on('uncaughtException', (err) => fail(err?.stack ?? String(err)));
process.on('unhandledRejection', (err) => fail(err?.stack ?? String(err)));
// Whatever path led here, no child (redis-server included) and no temp file outlives the bench.
process.on('exit', () => {
  for (const child of children) child.killNow();
  redisServer?.child.killNow();
  rmSync(tempDir, { recursive: true, force: true });
});

await main();

async function main() {
  for (const file of [apiMain, workerMain])
    if (!existsSync(file)) return fail(`${file} is missing: build first (npx turbo run build)`);
  const startedAt = new Date();
  redisServer = await startRedisServer({ dir: tempDir, onUnexpectedExit: fail });
  const counters = new RedisCounters(redisServer.url);
  cleanups.push(() => counters.close());
  if (options.only === 'live') {
    console.log(`${liveReport(await runLive())}\n`);
    return shutdown(0);
  }
  if (options.only === 'media') {
    console.log(`${mediaReport(await runMedia())}\n`);
    return shutdown(0);
  }
  if (options.only === 'tools') {
    console.log(`${toolsReport(await runTools())}\n`);
    return shutdown(0);
  }
  if (options.only === 'recovery') {
    const recovery = await runRecovery();
    console.log(recoveryReport(recovery));
    return shutdown(recoveryFailed(recovery) ? 1 : 0);
  }

  const bareBullmq = await bareSystem(counters);
  const bare = await runPhases(bareBullmq, { ordered: false });
  // Switchboard gets the machine and an empty Redis to itself.
  await stopChildren();
  await bareBullmq.close();
  await counters.flush();
  const hub = await runPhases(await switchboardSystem(counters), { ordered: true });
  await stopChildren();
  await counters.flush();
  const pipelineOnly = options.only === 'pipeline';
  const recovery = pipelineOnly ? null : await runRecovery();
  await counters.flush();
  const media = pipelineOnly ? null : await runMedia();
  const tools = pipelineOnly ? null : await runTools();
  let live = null;
  if (options.only !== 'hub' && !pipelineOnly) {
    await stopChildren();
    await counters.flush();
    live = await runLive();
  }
  const seconds = ((Date.now() - startedAt.getTime()) / 1000).toFixed(0);

  console.log(header(startedAt));
  console.log(`\n${comparisonTable(bare, hub)}\n`);
  console.log(`${commandsTable(bare, hub)}\n`);
  console.log(`${memoryLines(bare, hub, options.keepJobs)}\n`);
  if (hub.soak) console.log(`${soakReport(hub.soak)}\n`);
  console.log(`${phaseNotes({ bare, switchboard: hub })}\n`);
  console.log(`Correctness (after the last phase, every accepted message of every phase):\n\n${correctnessTable(bare, hub)}\n`);
  console.log(`Targets:\n\n${targets(bare, hub)}\n`);
  console.log(`${capacityLines(hub)}\n`);
  if (recovery) console.log(`${recoveryReport(recovery)}\n`);
  if (media) console.log(`${mediaReport(media)}\n`);
  if (tools) console.log(`${toolsReport(tools)}\n`);
  if (live) console.log(`${liveReport(live)}\n`);
  console.log(`(whole run: ${seconds} s)`);

  const broken = [bare, hub].flatMap((result) =>
    ['warmup', ...PHASES].map((key) => result[key]).filter((phase) => phase.errors || phase.incomplete),
  );
  if (checkFailed(hub.check) || (recovery && recoveryFailed(recovery))) {
    console.error(
      'bench: ⚠ CORRECTNESS FAILURE: Switchboard lost, duplicated or reordered messages (see Correctness and recovery)',
    );
    return shutdown(1);
  }
  if (checkFailed(bare.check) || broken.length) {
    console.error('bench: the bench broke (errors, time-outs or a broken floor; see above): these numbers are not to be trusted');
    return shutdown(1);
  }
  return shutdown(0);
}

/** What the recovery and live scenarios start their children with: this bench's Redis, builds and options. */
function scenarioChildren() {
  return {
    tempDir,
    redisUrl: redisServer.url,
    spawnChild,
    apiMain,
    workerMain,
    workerNodeArgs: options.workerNodeArgs,
    logLevel: options.logLevel,
    timeoutMs: options.deliveryTimeoutMs,
  };
}

/** The recovery phase (hub-recovery.mjs): a worker SIGKILLed holding messages, the other delivers them. */
async function runRecovery() {
  process.stderr.write('bench: recovery (a worker SIGKILLed while it holds messages)…\n');
  const result = await recoveryScenario({ ...scenarioChildren(), concurrency: options.concurrency });
  await stopChildren();
  return result;
}

/** A message lost or delivered twice when a worker died. */
function recoveryFailed(recovery) {
  return recovery.missing > 0 || recovery.duplicates > 0;
}

/** The media phase (hub-media.mjs): a 1 MB image per message; worker CPU per message and RSS over the run. */
async function runMedia() {
  process.stderr.write(`bench: media (${options.media.messages} messages with a 1 MB image)…\n`);
  const result = await mediaScenario({
    ...scenarioChildren(),
    ...options.media,
    concurrency: options.concurrency,
    // A batch of images waits for all of its answers: the phase bound, not one delivery's.
    timeoutMs: options.phaseTimeoutMs,
  });
  await stopChildren();
  return result;
}

/** The tools phase (hub-tools.mjs): worker CPU and Redis commands per tool step, on a Redis and worker of its own. */
async function runTools() {
  const { messages, steps } = toolsOptions();
  process.stderr.write(`bench: tools (${messages} messages of ${steps} tool steps)…\n`);
  return toolsScenario(toolsOptions());
}

/** The live-reply scenario (hub-live.mjs) on the private redis-server, with the bench's children. */
async function runLive() {
  process.stderr.write('bench: live replies (whole, then streamed)…\n');
  const result = await liveScenario({ here, ...scenarioChildren(), ...options.live });
  await stopChildren();
  return result;
}

/**
 * The phases, in order, on one system: warm-up accepts, (a) accepts with no worker, (b) the
 * worker drains that backlog, (c) closed-loop end-to-end, (d) one message at a time, then the
 * settle wait and the check.
 * @param {import('./hub-load.mjs').System} system
 * @returns {Promise<import('./hub-report.mjs').SystemResult & { warmup: import('./hub-load.mjs').Phase }>}
 */
async function runPhases(system, { ordered }) {
  const conversations = new Conversations(options.conversations);
  const { inflight, phaseTimeoutMs: timeoutMs, deliveryTimeoutMs } = options;
  const warmup = await acceptPhase(system, conversations, { messages: options.warmup, inflight, timeoutMs });
  progress(system, 'warm-up accepts', warmup);
  const accept = await acceptPhase(system, conversations, { messages: options.messages, inflight, timeoutMs });
  progress(system, '(a) accept', accept);
  const drain = await drainPhase(system, { warmup: options.warmup, timeoutMs });
  progress(system, '(b) drain', drain);
  const endToEnd = await endToEndPhase(system, conversations, {
    messages: options.endToEndMessages,
    inflight: options.endToEndInflight,
    timeoutMs,
    deliveryTimeoutMs,
  });
  progress(system, '(c) end-to-end', endToEnd);
  const oneInFlight = await endToEndPhase(system, conversations, {
    messages: options.oneInFlightMessages,
    inflight: 1,
    timeoutMs,
    deliveryTimeoutMs,
  });
  progress(system, '(d) one in flight', oneInFlight);
  const soak = system.name === 'switchboard' && options.soakMs > 0 ? await soakPhase(system, conversations) : null;
  const settled = await settle(system, { timeoutMs: options.settleTimeoutMs, quietMs: options.quietMs });
  if (!settled)
    process.stderr.write(
      `bench: ${system.name}: not every accepted message was delivered within ${options.settleTimeoutMs} ms\n`,
    );
  return { warmup, accept, drain, endToEnd, oneInFlight, soak, check: check(system, { ordered }) };
}

/**
 * The soak (`BENCH_HUB_SOAK_SECONDS`): batches of (c)'s closed loop until the time is up, Redis's
 * `used_memory` read after each, so a run shows memory levelling off at the `keepJobs` bound.
 * @returns {Promise<{ messages: number, samples: { seconds: number, messages: number, usedMemory: number }[] }>}
 */
async function soakPhase(system, conversations) {
  const started = Date.now();
  const samples = [];
  let messages = 0;
  while (Date.now() - started < options.soakMs) {
    const batch = await endToEndPhase(system, conversations, {
      messages: 1000,
      inflight: options.endToEndInflight,
      timeoutMs: options.phaseTimeoutMs,
      deliveryTimeoutMs: options.deliveryTimeoutMs,
    });
    messages += batch.messages;
    if (batch.errors || batch.incomplete) throw new Error(`soak: ${batch.firstError ?? batch.incomplete}`);
    const { usedMemory } = await system.probe.counters.read();
    samples.push({ seconds: (Date.now() - started) / 1000, messages, usedMemory });
    process.stderr.write(`bench: soak ${messages} messages, used memory ${(usedMemory / 2 ** 20).toFixed(1)} MiB\n`);
  }
  return { messages, samples };
}

/** The soak's samples, one line each. */
function soakReport(soak) {
  const lines = soak.samples.map(
    (s) => `| ${s.seconds.toFixed(0)} | ${s.messages.toLocaleString('en-US')} | ${(s.usedMemory / 2 ** 20).toFixed(1)} |`,
  );
  return [
    `Soak (Switchboard, worker.keepJobs ${options.keepJobs.toLocaleString('en-US')}): Redis used memory after each batch of 1,000`,
    '',
    '| s | messages | used MiB |',
    '|--:|--:|--:|',
    ...lines,
  ].join('\n');
}

/** One line on stderr per phase, so a long run shows where it is. */
function progress(system, what, phase) {
  const latency = phase.latency ? `, p50 ${phase.latency.p50.toFixed(2)} ms` : '';
  const errors = phase.errors ? `, ${phase.errors} errors (${phase.firstError})` : '';
  const cut = phase.incomplete ? `, ${phase.incomplete}` : '';
  const seconds = (phase.elapsedMs / 1000).toFixed(2);
  process.stderr.write(
    `bench: ${system.name} ${what}: ${phase.messages} in ${seconds} s, ${Math.round(phase.rate)}/s${latency}${errors}${cut}\n`,
  );
}

/** The job data Switchboard's API queues for a generic-hook message, so both queue the same bytes. */
function jobData(message) {
  return {
    hook: HOOK,
    message: { action: 'chat', text: message.text, from: message.from, conversation: message.from, dedupeKey: null, replyTo: {} },
    receivedAt: Date.now(),
    after: null,
  };
}

/**
 * Bare BullMQ: this process adds the jobs (one Queue on one connection, as the API has), and
 * bench/bare-worker.mjs runs them with a no-op processor and reports each completion.
 * @returns {Promise<import('./hub-load.mjs').System>}
 */
async function bareSystem(counters) {
  const prefix = 'bare';
  const connection = new Redis(redisServer.url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
  connection.on('error', () => {});
  const queue = new Queue('inbound', { connection, prefix });
  queue.on('error', () => {});
  const close = async () => {
    await queue.close().catch(() => {});
    connection.disconnect();
  };
  cleanups.push(close);
  const deliveries = new Deliveries();
  let worker;
  return {
    name: 'bare',
    accepted: new Map(),
    deliveries,
    send: async (message) => (await queue.add('message', jobData(message), BARE_JOB_OPTIONS)).id,
    startWorker: async () => {
      const env = {
        ...process.env,
        REDIS_URL: redisServer.url,
        BARE_QUEUE: 'inbound',
        BARE_PREFIX: prefix,
        BARE_CONCURRENCY: String(options.concurrency),
      };
      worker = spawnChild('bare worker', [...options.workerNodeArgs, join(here, 'bare-worker.mjs')], env, 'pipe');
      await readCompletions(worker, deliveries);
    },
    probe: new Probe(counters, () => ({ redis: redisServer.child.pid, worker: worker?.pid })),
    close,
  };
}

/**
 * Feeds the bare worker's `<job id> <epoch ms>` lines into `deliveries`; resolves once it said `ready`.
 * @param {Child} worker
 * @param {Deliveries} deliveries
 */
function readCompletions(worker, deliveries, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${worker.name} did not get ready within ${timeoutMs} ms`)), timeoutMs);
    createInterface({ input: worker.process.stdout }).on('line', (line) => {
      if (line === 'ready') {
        clearTimeout(timer);
        resolve();
        return;
      }
      const [id, at] = line.split(' ');
      deliveries.record({ id, at: Number(at) });
    });
  });
}

/**
 * Switchboard: the stand-in upstream, the reply receiver (in this process), the built API and,
 * from phase (b) on, the built worker, all on the private Redis.
 * @returns {Promise<import('./hub-load.mjs').System>}
 */
async function switchboardSystem(counters) {
  const upstream = spawnChild(
    'upstream',
    [join(here, 'upstream-server.mjs')],
    { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    'pipe',
  );
  const upstreamPort = await readPort(upstream);
  const deliveries = new Deliveries();
  const receiver = await startReceiver({ path: INBOX, hook: HOOK, onDelivery: (delivery) => deliveries.record(delivery) });
  cleanups.push(() => receiver.close());

  const configPath = join(tempDir, 'switchboard.json');
  writeFileSync(configPath, JSON.stringify(switchboardConfig(upstreamPort, receiver.port)));
  const appEnv = (port) =>
    switchboardEnv({ port, configPath, redisUrl: redisServer.url, prefix: 'hub', logLevel: options.logLevel });
  const apiPort = await freePort();
  const api = spawnChild('api', [...options.apiNodeArgs, apiMain], appEnv(apiPort), 'ignore');
  const origin = `http://127.0.0.1:${apiPort}`;
  await waitForHealth(origin, api);

  const pool = new Pool(origin, {
    connections: Math.max(options.inflight, options.endToEndInflight),
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  cleanups.push(() => pool.destroy()); // not close(): it would wait for requests still in flight
  const headers = { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' };
  let worker;
  return {
    name: 'switchboard',
    accepted: new Map(),
    deliveries,
    send: async (message) => {
      const body = JSON.stringify({ text: message.text, from: message.from });
      const response = await pool.request({ path: `/hooks/${HOOK}`, method: 'POST', headers, body });
      const text = await response.body.text();
      if (response.statusCode !== 202) throw new Error(`status ${response.statusCode}: ${text.slice(0, 200)}`);
      const id = JSON.parse(text)?.id;
      if (typeof id !== 'string' || !id) throw new Error(`202 without a job id: ${text.slice(0, 200)}`);
      return id;
    },
    startWorker: async () => {
      worker = spawnChild('worker', [...options.workerNodeArgs, workerMain], appEnv(undefined), 'ignore');
    },
    probe: new Probe(counters, () => ({
      redis: redisServer.child.pid,
      api: api.pid,
      worker: worker?.pid,
      upstream: upstream.pid,
    })),
  };
}

function switchboardConfig(upstreamPort, receiverPort) {
  return {
    defaultModel: 'bench/gpt-4o-mini',
    providers: {
      bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, apiKey: API_KEY, models: ['gpt-4o-mini'] },
    },
    hooks: {
      [HOOK]: { type: 'generic', token: HOOK_TOKEN, replyUrl: `http://127.0.0.1:${receiverPort}${INBOX}` },
    },
    worker: { concurrency: options.concurrency, keepJobs: options.keepJobs },
  };
}

function spawnChild(name, args, env, stdout) {
  const child = new Child(name, args, { env, stdout, onUnexpectedExit: (message) => fail(message) });
  children.push(child);
  return child;
}

/** Stops the node children (workers first, so no job is cut off by the API going away), in parallel. */
async function stopChildren() {
  const running = children.splice(0);
  await Promise.allSettled(running.map((child) => child.stop()));
}

function header(startedAt) {
  const cpu = cpus();
  const o = options;
  return [
    `# Switchboard hub bench (${startedAt.toISOString()})`,
    '',
    `- node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}; bench, redis-server, API, worker and upstream share these cores`,
    `- private redis-server (no persistence); bare BullMQ first, then FLUSHALL, then Switchboard (hook \`${HOOK}\`, generic, replyUrl → a receiver in the bench process)`,
    `- both keep finished jobs 24 h and at most ${o.keepJobs.toLocaleString('en-US')} completed (bare: BullMQ's removeOnComplete; Switchboard: worker.keepJobs)`,
    `- worker concurrency ${o.concurrency} (both); ${o.conversations} conversations${
      o.conversations < Math.max(o.inflight, o.endToEndInflight)
        ? ` (⚠ fewer than in flight: at most ${o.conversations} loops run)`
        : ''
    }; API/worker LOG_LEVEL=${o.logLevel}, stdout discarded`,
    `- warm-up: ${o.warmup} accepts, and the first ${o.warmup} deliveries of (b) are not measured`,
    `- (a) ${o.messages} messages, ${o.inflight} in flight, no worker running; accept latency = request sent (or queue.add called) → 202 received (or add resolved)`,
    `- (b) the whole backlog (${o.warmup + o.messages}), drained by one worker started after (a)`,
    `- (c) ${o.endToEndMessages} messages, closed loop: ${o.endToEndInflight} in flight, each waits for its delivery before the next; ` +
      'latency = request sent (or queue.add called) → delivered (receiver got the POST; bare: worker emitted completed)',
    `- (d) ${o.oneInFlightMessages} messages, one at a time (idle worker woken per message): the latency of a message that waits for nothing`,
    "- CPU from /proc (10 ms ticks) per measured message; Redis commands from INFO (the bench's own INFO calls taken out)",
  ].join('\n');
}

function fail(message, code = 1) {
  if (exiting) return;
  console.error(`bench: ${message}`);
  void shutdown(code);
}

/** Stops the children, then redis-server, removes the temp files, exits. */
async function shutdown(code) {
  if (exiting) return;
  exiting = true;
  await stopChildren();
  for (const cleanup of cleanups.reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => {});
  await redisServer?.child.stop();
  rmSync(tempDir, { recursive: true, force: true });
  console.error('bench: cleaned up (children and redis-server stopped, temp files removed)');
  process.exit(code);
}
