#!/usr/bin/env node
// `npm run bench`: what the gateway costs on top of the upstream it forwards to, measured against
// the floor any Node gateway starts from. In one invocation it starts a stand-in upstream, a bare
// node:http + undici proxy (bench/bare-proxy.mjs), the built API (apps/api/dist/main.js) and the
// same API with API_PROCESSES=2, drives each with the same undici load from this process, and
// prints markdown tables: every scenario with the ratio to the bare proxy, and the goals.
// BENCH_SOAK_SECONDS=600 adds a long run that samples the API's RSS (flat after warm-up?).
// Exits 0 whatever the goals say; non-zero only when the bench itself broke (errors, a crash).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Child, deleteRedisKeys, freePort, readPort, waitForHealth } from './children.mjs';
import { machineBusyMs, processCpuMs, treeCpuMs } from './cpu.mjs';
import { benchConfig, nodeArgsFromEnv, numberFromEnv, switchboardEnv } from './env.mjs';
import { API_KEY } from './fixture.mjs';
import { attributeLayers, layerTable } from './layer-costs.mjs';
import { burst, measure, summarize } from './load.mjs';
import { COST_SCENARIOS, COST_SWITCHES, costReport, measureCost } from './observability-cost.mjs';
import { cpuTable, floorGoals, floorTable, soakTable, ttfbTable } from './report.mjs';
import { roundOrder } from './round-order.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const builtApi = join(here, '..', 'apps', 'api', 'dist', 'main.js');
const bareProxy = join(here, 'bare-proxy.mjs');
const koaFloor = join(here, 'koa-floor.mjs');
// Another server to put in the gateway's place (its numbers are then read against the floor).
const apiMain = process.env.BENCH_GATEWAY_SCRIPT ? resolve(process.env.BENCH_GATEWAY_SCRIPT) : builtApi;

const SCENARIOS = [
  { id: 'json-1', label: 'non-streaming, 1 conn', stream: false, connections: 1 },
  { id: 'json-32', label: 'non-streaming, 32 conns', stream: false, connections: 32 },
  { id: 'sse-1', label: 'streaming, 1 conn', stream: true, connections: 1 },
  { id: 'sse-8', label: 'streaming, 8 conns', stream: true, connections: 8 },
  // A thousand users at once, each stream taking about 5 s (an event every 400 ms): what the
  // provider's connection pool must serve without making anyone wait for a connection.
  { id: 'sse-1000-slow', label: 'slow streams, 1000 at once', stream: true, connections: 1000, burst: { chunkMs: 400 } },
];

const env = process.env;
// The main table runs in rounds: in each, every target once, the gateway and the Koa floor back to
// back (which goes first alternates), and the goals read the median of the rounds' gateway ÷ floor
// (report.mjs). Between two runs minutes apart one 4 s pass per target moved gw/koa at json-32 from
// 0.65 to 1.10; docs/performance.md gives the spread of both readings.
const DEFAULT_ROUNDS = 5;
const DEFAULT_ROUND_SECONDS = 2;
const DEFAULT_ROUND_WARMUP_SECONDS = 0.5;
const seconds = numberFromEnv('BENCH_SECONDS', undefined, { positive: true });
const warmupSeconds = numberFromEnv('BENCH_WARMUP_SECONDS', undefined);
const options = {
  measureMs: (seconds ?? DEFAULT_ROUND_SECONDS) * 1000,
  warmupMs: (warmupSeconds ?? DEFAULT_ROUND_WARMUP_SECONDS) * 1000,
  maxRequests: Math.round(numberFromEnv('BENCH_MAX_REQUESTS', 1_000_000, { positive: true })),
};
// The cost twins and the profiled gateways: 1 s warm-up + 3 s measured unless BENCH_SECONDS and
// BENCH_WARMUP_SECONDS say (a full `npm run bench` stays near 8 minutes).
const sectionOptions = { ...options, warmupMs: (warmupSeconds ?? 1) * 1000, measureMs: (seconds ?? 3) * 1000 };
const rounds = Math.max(1, Math.round(numberFromEnv('BENCH_ROUNDS', DEFAULT_ROUNDS)));
// The 1,000 slow streams take about a minute a round across the targets: one round unless asked
// (BENCH_SLOW_ROUNDS, else BENCH_ROUNDS when that is set).
const slowRounds = Math.max(1, Math.round(numberFromEnv('BENCH_SLOW_ROUNDS', env.BENCH_ROUNDS ? rounds : 1)));
// API_PROCESSES values to measure the gateway with; 1 is always measured.
const processCounts = [
  ...new Set([
    1,
    ...(env.BENCH_PROCESSES ?? '2')
      .split(',')
      .map((n) => Number(n.trim()))
      .filter((n) => n >= 1),
  ]),
];
const soakSeconds = numberFromEnv('BENCH_SOAK_SECONDS', 0);
// The observability cost section (observability-cost.mjs): on (default), off, or only it.
const costMode = ['on', 'off', 'only'].includes(env.BENCH_COST) ? env.BENCH_COST : 'on';
const costRounds = Math.max(1, Math.round(numberFromEnv('BENCH_COST_ROUNDS', 6)));
// Load (not measured) each cost twin takes per scenario before its rounds: a fresh gateway needed
// 5–6 s and more of load to reach its speed at load 7–8 (docs/performance.md, observability cost).
const costPrimeMs = numberFromEnv('BENCH_COST_PRIME_SECONDS', 6) * 1000;
const costIds = env.BENCH_COST_SCENARIOS?.split(',').map((id) => id.trim()) ?? COST_SCENARIOS;
// The layer table (layer-costs.mjs): on (default), off, or only it.
const layersMode = ['on', 'off', 'only'].includes(env.BENCH_LAYERS) ? env.BENCH_LAYERS : 'on';
const layerIds = env.BENCH_LAYER_SCENARIOS?.split(',').map((id) => id.trim()) ?? ['json-32', 'sse-8'];
// Only one section asked for: the main table is skipped too.
const mainMode = costMode === 'only' || layersMode === 'only' ? 'off' : 'on';
const logLevel = env.BENCH_GATEWAY_LOG_LEVEL || 'info';
const gatewayNodeArgs = nodeArgsFromEnv('BENCH_GATEWAY_NODE_ARGS');
const only = env.BENCH_SCENARIOS?.split(',').map((id) => id.trim());
// The provider's pool size (providers.bench.maxConnections); unset: Switchboard's default.
const maxConnections = numberFromEnv('BENCH_MAX_CONNECTIONS', 0, { integer: true });
const redisUrl = env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `bench-${randomBytes(6).toString('hex')}`;

const children = [];
const tempDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
let exiting = false;

process.on('SIGINT', () => fail('interrupted', 130));
process.on('SIGTERM', () => fail('terminated', 143));
process.on('uncaughtException', (err) => fail(err?.stack ?? String(err)));
process.on('unhandledRejection', (err) => fail(err?.stack ?? String(err)));
// Whatever path led here, no child and no temp file outlives the bench.
process.on('exit', () => {
  for (const child of children) child.killNow();
  rmSync(tempDir, { recursive: true, force: true });
});

await main();

async function main() {
  if (!existsSync(apiMain))
    return fail(`${apiMain} is missing${apiMain === builtApi ? ': build first (npx turbo run build)' : ''}`);
  const scenarios = only ? SCENARIOS.filter((s) => only.includes(s.id)) : SCENARIOS;
  if (!scenarios.length) return fail(`BENCH_SCENARIOS matches none of ${SCENARIOS.map((s) => s.id).join(', ')}`);

  const upstream = spawnChild('upstream', [join(here, 'upstream-server.mjs')], { ...env, PORT: '0', HOST: '127.0.0.1' }, 'pipe');
  const upstreamPort = await readPort(upstream);

  const writeConfig = (name, extra) => {
    const path = join(tempDir, name);
    writeFileSync(path, JSON.stringify(benchConfig(upstreamPort, { apiKey: API_KEY, maxConnections, extra })));
    return path;
  };
  // The gateways run with observability (metrics, usage accounting) on, as by default; a twin
  // with it off measures what it costs.
  const configPath = writeConfig('switchboard.json', COST_SWITCHES.on);

  const headers = { authorization: `Bearer ${API_KEY}` };
  const direct = {
    name: 'direct',
    origin: `http://127.0.0.1:${upstreamPort}`,
    path: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    headers,
  };
  const targets = [direct];
  const server = async (name, script, extraEnv = {}, config = configPath, nodeArgs = gatewayNodeArgs) => {
    const port = await freePort();
    const child = spawnChild(name, [...nodeArgs, script], { ...gatewayEnv(port, config), ...extraEnv }, 'ignore');
    const origin = `http://127.0.0.1:${port}`;
    await waitForHealth(origin, child);
    return { name, origin, path: '/v1/chat/completions', model: 'bench/gpt-4o-mini', headers, pid: child.process.pid, child };
  };
  if (mainMode === 'on') {
    targets.push(await server('bare', bareProxy));
    targets.push(await server('koa', koaFloor));
    for (const count of processCounts) {
      targets.push(await server(count === 1 ? 'gateway' : `gateway×${count}`, apiMain, { API_PROCESSES: String(count) }));
    }
  }

  // CPU ms so far of the upstream, of the target's server (all its processes), and of everything
  // else on the machine ("other").
  const cpuProbe = (target) => () => {
    const up = processCpuMs(upstream.process.pid);
    const gw = target.pid ? treeCpuMs(target.pid) : 0;
    const machine = machineBusyMs();
    if (up === null || gw === null || machine === null) return null;
    const own = process.cpuUsage();
    const bench = (own.user + own.system) / 1000;
    return { bench, upstream: up, gateway: gw, other: machine - bench - up - gw };
  };

  console.log(header());
  const runs = new Map(scenarios.map((scenario) => [scenario.id, Object.fromEntries(targets.map((t) => [t.name, []]))]));
  const lastRound = mainMode === 'on' ? Math.max(rounds, scenarios.some((s) => s.burst) ? slowRounds : 0) : 0;
  for (let round = 1; round <= lastRound; round++) {
    for (const scenario of scenarios) {
      const of = scenario.burst ? slowRounds : rounds;
      if (round > of) continue;
      for (const target of roundOrder(targets, round)) {
        process.stderr.write(`bench: ${of > 1 ? `round ${round}/${of} ` : ''}${scenario.id} → ${target.name} … `);
        const probe = cpuProbe(target);
        const run = scenario.burst
          ? await burst(target, { streams: scenario.connections, chunkMs: scenario.burst.chunkMs, cpuProbe: probe })
          : await measure(target, { ...options, stream: scenario.stream, connections: scenario.connections, cpuProbe: probe });
        runs.get(scenario.id)[target.name].push(run);
        const p50 = [...run.latencies].sort((a, b) => a - b)[Math.floor(run.latencies.length / 2)] ?? Number.NaN;
        // A burst's connections the kernel dropped (listen queue full) come a second late: say so.
        const drops =
          run.listenDrops == null ? '' : `, ${run.listenDrops} connections dropped by a full listen queue (machine-wide)`;
        process.stderr.write(
          `${Math.round((run.latencies.length / run.elapsedMs) * 1000)} req/s, p50 ${p50.toFixed(2)} ms, ${run.errors} errors${drops}\n`,
        );
      }
    }
  }
  const rows = (mainMode === 'on' ? scenarios : []).map((scenario) => ({
    scenario,
    results: Object.fromEntries(targets.map((t) => [t.name, summarize(runs.get(scenario.id)[t.name])])),
    // The goals are read round by round (report.mjs): each round's gateway against its own Koa
    // floor (and, for slow streams, its own direct).
    rounds: Object.fromEntries(targets.map((t) => [t.name, runs.get(scenario.id)[t.name].map((run) => summarize([run]))])),
  }));

  if (rows.length) {
    console.log(`\n${floorTable(rows)}\n`);
    const ttfb = ttfbTable(rows);
    if (ttfb) console.log(`Streaming, time to first body byte (ms):\n\n${ttfb}\n`);
    const cpu = cpuTable(rows);
    if (cpu) console.log(`CPU per request (µs; from /proc, 10 ms resolution), the server's cores, and other load:\n\n${cpu}\n`);
    console.log(`${floorGoals(rows)}\n`);
  }

  let costRows = [];
  if (costMode !== 'off' && layersMode !== 'only' && apiMain === builtApi) {
    // Two fresh twins: the main gateway has served the other scenarios (1,000 slow streams leave
    // its pool and heap larger), which would bias the comparison against whichever side it was.
    const on = await server('gateway (observability on)', apiMain);
    const off = await server('gateway (observability off)', apiMain, {}, writeConfig('off.json', COST_SWITCHES.off));
    const compared = SCENARIOS.filter((s) => costIds.includes(s.id) && !s.burst);
    // The gateway's own CPU per request: what bounds its throughput, and steadier than req/s
    // when other processes share the cores.
    const load = (scenario) => ({ stream: scenario.stream, connections: scenario.connections });
    costRows = await measureCost(
      { on, off },
      compared,
      costRounds,
      (target, scenario) => {
        const cpuProbe = () => {
          const ms = processCpuMs(target.pid);
          return ms === null ? null : { gateway: ms };
        };
        return measure(target, { ...sectionOptions, ...load(scenario), cpuProbe });
      },
      costPrimeMs > 0
        ? (target, scenario) => measure(target, { ...sectionOptions, ...load(scenario), warmupMs: 0, measureMs: costPrimeMs })
        : undefined,
    );
    console.log(`${costReport(costRows)}\n`);
  }

  const layerRows = [];
  if (layersMode !== 'off' && apiMain === builtApi) {
    // Every layer doing its work: the key checked (with a per-key rate limit, so the limiter's
    // Redis script runs), metrics and usage on; the cache is not configured (no lookup).
    const layersConfig = writeConfig('layers.json', {
      ...COST_SWITCHES.on,
      apiKeys: [{ key: API_KEY, requestsPerMinute: 100_000_000 }],
    });
    const profiled = SCENARIOS.filter((s) => layerIds.includes(s.id) && !s.burst);
    for (const scenario of profiled) {
      layerRows.push(
        await measureLayers(scenario, (name, dir) =>
          server(name, apiMain, {}, layersConfig, ['--cpu-prof', `--cpu-prof-dir=${dir}`]),
        ),
      );
    }
    if (layerRows.length) {
      console.log(
        [
          'Where the CPU per request goes (profile attribution: a fresh gateway per scenario under --cpu-prof, every layer on —',
          'API key + per-key rate limit, metrics, usage; cache not configured — each busy sample of the measured window given to the',
          'innermost frame of a layer on its stack, bench/layer-costs.mjs; share × the CPU µs per request that run used, from /proc;',
          'the profiler itself adds some CPU, so the total is above the main table’s):',
          '',
          layerTable(layerRows),
          '',
        ].join('\n'),
      );
    }
  }

  if (soakSeconds > 0) {
    const gateway = targets.find((t) => t.name === 'gateway');
    process.stderr.write(`bench: soak, json-32 → gateway for ${soakSeconds} s, RSS sampled every 10 s …\n`);
    const samples = await soak(gateway, soakSeconds);
    console.log(`${soakTable(samples)}\n`);
  }

  const broken = [
    ...rows.flatMap((row) =>
      Object.entries(row.results)
        .filter(([, result]) => result.errors > 0)
        .map(([name, result]) => `${row.scenario.id} ${name}: ${result.errors} errors, first: ${result.firstError}`),
    ),
    ...layerRows
      .filter((row) => row.errors > 0)
      .map((row) => `layers ${row.label}: ${row.errors} errors, first: ${row.firstError}`),
    ...costRows.flatMap((row) =>
      ['on', 'off']
        .filter((name) => row[name].errors > 0)
        .map((name) => `cost ${row.scenario.id} ${name}: ${row[name].errors} errors, first: ${row[name].firstError}`),
    ),
  ];
  if (broken.length) {
    console.error(`bench: requests failed, so these numbers are not to be trusted:\n  ${broken.join('\n  ')}`);
    return shutdown(1);
  }
  return shutdown(0);
}

/**
 * One scenario against a fresh profiled gateway: measured as the others, then stopped so that
 * its profile is written, and the profile's samples of the measured window attributed to layers.
 */
async function measureLayers(scenario, start) {
  // BENCH_LAYER_PROFILE_DIR keeps the profiles (for bench/profile-summary.mjs); else they go with the temp dir.
  const dir = join(env.BENCH_LAYER_PROFILE_DIR ? resolve(env.BENCH_LAYER_PROFILE_DIR) : tempDir, `profile-${scenario.id}`);
  const target = await start(`gateway (profiled, ${scenario.id})`, dir);
  const window = [];
  const cpuProbe = () => {
    window.push(Number(process.hrtime.bigint() / 1000n)); // the profile's clock: CLOCK_MONOTONIC µs
    const ms = processCpuMs(target.pid);
    return ms === null ? null : { gateway: ms };
  };
  process.stderr.write(`bench: layers ${scenario.id} → profiled gateway … `);
  const run = await measure(target, { ...sectionOptions, stream: scenario.stream, connections: scenario.connections, cpuProbe });
  process.stderr.write(`${Math.round((run.latencies.length / run.elapsedMs) * 1000)} req/s, ${run.errors} errors\n`);
  await target.child.stop();
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`the profiled gateway wrote no profile in ${dir}`);
  const { busy, byLayer } = attributeLayers(JSON.parse(readFileSync(join(dir, file), 'utf8')), {
    fromUs: window[0],
    toUs: window[1],
  });
  const result = summarize([run]);
  return {
    label: scenario.label,
    cpuUsPerRequest: result.cpuUsPerRequest?.gateway ?? Number.NaN,
    busy,
    byLayer,
    errors: run.errors,
    firstError: run.firstError,
  };
}

/** json-32 against `target` for `seconds`, with its RSS (MiB) read from /proc every 10 s. */
async function soak(target, seconds) {
  const samples = [];
  const rssMiB = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${target.pid}/status`, 'utf8'))?.[1]);
      return kb / 1024;
    } catch {
      return Number.NaN;
    }
  };
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    const run = await measure(target, { ...options, warmupMs: 0, measureMs: 10_000, stream: false, connections: 32 });
    samples.push({
      atSeconds: Math.round((Date.now() - started) / 1000),
      rssMiB: rssMiB(),
      rps: (run.latencies.length / run.elapsedMs) * 1000,
      errors: run.errors,
    });
  }
  return samples;
}

function spawnChild(name, args, childEnv, stdout) {
  const child = new Child(name, args, { env: childEnv, stdout, onUnexpectedExit: (message) => fail(message) });
  children.push(child);
  return child;
}

/** The gateway sees only the bench's provider: env shortcuts (OPENAI_API_KEY…) are dropped. */
function gatewayEnv(port, configPath) {
  return switchboardEnv({ port, configPath, redisUrl, prefix, logLevel });
}

function header() {
  const cpu = cpus();
  const logging = ['info', 'http', 'verbose', 'debug', 'silly'].includes(logLevel)
    ? 'request logging is ON (one winston JSON line per request, gateway stdout → ignore)'
    : 'request logging is OFF';
  return [
    `# Switchboard gateway bench (${new Date().toISOString()})`,
    '',
    `- node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}; bench, upstream and gateway share these cores`,
    `- each run: ${options.warmupMs / 1000} s warm-up + ${options.measureMs / 1000} s measured (BENCH_SECONDS; cost and layers ${sectionOptions.warmupMs / 1000} + ${sectionOptions.measureMs / 1000} s), ` +
      `one undici keep-alive Pool with one in-flight request per connection; ${rounds} round${rounds > 1 ? 's' : ''} (BENCH_ROUNDS` +
      `${slowRounds !== rounds ? `; slow streams ${slowRounds}, BENCH_SLOW_ROUNDS` : ''}), the order rotated each round with the Koa floor and the gateway back to back, ` +
      'which first alternating; the tables pool the rounds, the goals read the median of the rounds’ gateway ÷ Koa floor',
    `- gateway: LOG_LEVEL=${logLevel}, ${logging}${gatewayNodeArgs.length ? `, node ${gatewayNodeArgs.join(' ')}` : ''}`,
    `- direct = the stand-in upstream (answers at once); bare = bench/bare-proxy.mjs in front of it (the floor); koa = bench/koa-floor.mjs (the bare proxy's work under Koa, @koa/router and koa-body: the framework's floor); gateway = ${
      apiMain === builtApi ? '/v1 of apps/api' : relative(process.cwd(), apiMain)
    } (×N: API_PROCESSES=N)`,
    '- latencies in ms; gw/bare = gateway rps ÷ bare rps (streams: chunks/s, every stream has the same chunks), gw/koa likewise; +p50 = p50 − direct p50',
  ].join('\n');
}

function fail(message, code = 1) {
  if (exiting) return;
  console.error(`bench: ${message}`);
  void shutdown(code);
}

/** Stops both children, deletes the temp config and the Redis keys under the bench prefix, exits. */
async function shutdown(code) {
  if (exiting) return;
  exiting = true;
  await Promise.allSettled(children.map((child) => child.stop()));
  rmSync(tempDir, { recursive: true, force: true });
  try {
    const deleted = await deleteRedisKeys(redisUrl, prefix);
    console.error(`bench: cleaned up (children stopped, temp config removed, ${deleted} Redis keys under ${prefix}: deleted)`);
  } catch (err) {
    console.error(`bench: could not delete the Redis keys under ${prefix}: (${err?.message ?? err})`);
  }
  process.exit(code);
}
