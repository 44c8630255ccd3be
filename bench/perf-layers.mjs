#!/usr/bin/env node
// The layer table again, from on-CPU samples: `perf record -e cpu-clock:u` counts a sample only
// while the gateway's threads run in user space, where V8's --cpu-prof (layer-costs.mjs) samples
// on a wall-clock tick and, on a loaded machine, gives the time a thread waits for a core after a
// socket write to that write. Each scenario runs against a fresh gateway started with
// --perf-basic-prof (JIT frames named in /tmp/perf-<pid>.map), the same config as the layer table
// (API key with a per-key rate limit, metrics, usage); after a warm-up, perf samples every thread
// for BENCH_PERF_SECONDS under load, and each sample goes to the innermost layer frame on its
// stack (layer-costs.mjs's LAYERS). A layer's µs per request = its share × the gateway's user CPU
// per request (/proc utime over the same window); kernel time (stime: socket reads and writes)
// is a row of its own. Needs Linux perf, allowed to watch our own processes
// (kernel.perf_event_paranoid ≤ 2).
//   node bench/perf-layers.mjs [json-32,sse-8]
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, deleteRedisKeys, freePort, readPort, waitForHealth } from './children.mjs';
import { benchConfig, numberFromEnv, scenariosFromArg, switchboardEnv } from './env.mjs';
import { API_KEY } from './fixture.mjs';
import { LAYERS, layerOfStack, OTHER } from './layer-costs.mjs';
import { measure } from './load.mjs';
import { markdownTable } from './report.mjs';

/** `JS:*name file:///path.js:line:column` (name may be empty or hold a space: `get signal`). */
const JS_FRAME = /JS:[*~^+]?(.*?) ?(\S+):\d+:\d+$/;

/**
 * Samples per layer in `perf script -F tid,ip,sym` output (one block per sample: the thread id,
 * then the stack innermost first).
 * @returns {{ samples: number, byLayer: Map<string, number> }}
 */
export function attributePerfScript(text) {
  const byLayer = new Map();
  let samples = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.trim().split('\n');
    if (lines.length < 2) continue;
    samples++;
    const frames = [];
    for (const line of lines.slice(1)) {
      const match = JS_FRAME.exec(line.trim());
      if (match) frames.push({ functionName: match[1], url: match[2] });
    }
    const layer = layerOfStack(frames) ?? OTHER;
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + 1);
  }
  return { samples, byLayer };
}

function procTimesMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

async function main() {
  if (spawnSync('perf', ['--version']).status !== 0) {
    console.error('perf-layers: needs Linux perf on PATH (e.g. apt-get install linux-perf)');
    process.exit(2);
  }
  const scenarios = scenariosFromArg(process.argv[2], 'json-32,sse-8');
  const seconds = numberFromEnv('BENCH_PERF_SECONDS', 5, { positive: true });
  const apiMain = new URL('../apps/api/dist/main.js', import.meta.url).pathname;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-perf-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-perf-'));
  const children = [];
  const stopAll = async (code) => {
    await Promise.allSettled(children.map((child) => child.stop()));
    for (const child of children) rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
    rmSync(dir, { recursive: true, force: true });
    await deleteRedisKeys(redisUrl, prefix).catch(() => {});
    process.exit(code);
  };
  const start = (name, args, env, stdout) => {
    const child = new Child(name, args, {
      env,
      stdout,
      onUnexpectedExit: (message) => {
        console.error(`perf-layers: ${message}`);
        void stopAll(1);
      },
    });
    children.push(child);
    return child;
  };

  const upstream = start('upstream', [new URL('./upstream-server.mjs', import.meta.url).pathname], process.env, 'pipe');
  const config = join(dir, 'switchboard.json');
  writeFileSync(
    config,
    JSON.stringify(
      benchConfig(await readPort(upstream), {
        apiKey: API_KEY,
        extra: {
          metrics: { enabled: true },
          usage: { enabled: true },
          apiKeys: [{ key: API_KEY, requestsPerMinute: 100_000_000 }],
        },
      }),
    ),
  );

  const columns = [];
  for (const scenario of scenarios) {
    const port = await freePort();
    const env = switchboardEnv({ port, configPath: config, redisUrl, prefix, logLevel: 'info' });
    // V8 writes its log beside the perf map; keep it out of the working directory.
    const nodeArgs = ['--perf-basic-prof', `--logfile=${join(dir, 'v8.log')}`, '--no-logfile-per-isolate'];
    const gateway = start(`gateway ${scenario.id}`, [...nodeArgs, apiMain], env, 'ignore');
    const target = {
      name: 'gateway',
      origin: `http://127.0.0.1:${port}`,
      path: '/v1/chat/completions',
      model: 'bench/gpt-4o-mini',
      headers: { authorization: `Bearer ${API_KEY}` },
    };
    await waitForHealth(target.origin, gateway);
    const load = { stream: scenario.stream, connections: scenario.connections, maxRequests: 1_000_000 };
    process.stderr.write(`perf-layers: ${scenario.id} warming up …\n`);
    await measure(target, { ...load, warmupMs: 5000, measureMs: 500 }); // past start-up and JIT

    const data = join(dir, `${scenario.id}.data`);
    const record = ['record', '-q', '-e', 'cpu-clock:u', '-F', '1999', '-g', '-p', String(gateway.pid), '-o', data];
    const perf = spawn('perf', [...record, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
    const before = procTimesMs(gateway.pid);
    const run = await measure(target, { ...load, warmupMs: 0, measureMs: seconds * 1000 });
    const after = procTimesMs(gateway.pid);
    await once(perf, 'exit');
    const script = spawnSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const requests = run.latencies.length;
    const { samples, byLayer } = attributePerfScript(script.stdout);
    process.stderr.write(`perf-layers: ${scenario.id}: ${requests} requests, ${run.errors} errors, ${samples} samples\n`);
    columns.push({
      label: scenario.id,
      userUs: ((after.user - before.user) * 1000) / requests,
      systemUs: ((after.system - before.system) * 1000) / requests,
      samples,
      byLayer,
      errors: run.errors,
    });
    await gateway.stop();
  }

  const cell = (column, name) => {
    const share = (column.byLayer.get(name) ?? 0) / column.samples;
    return `${Math.round(share * column.userUs)} (${(100 * share).toFixed(1)} %)`;
  };
  const names = [...LAYERS.map((layer) => layer.name), OTHER];
  console.log(
    markdownTable(
      ['layer (user-space CPU, on-CPU samples)', ...columns.map((c) => `${c.label}: µs/req`)],
      [
        ...names.map((name) => [name, ...columns.map((c) => cell(c, name))]),
        ['user CPU µs per request (/proc utime)', ...columns.map((c) => String(Math.round(c.userUs)))],
        ['kernel CPU µs per request (/proc stime)', ...columns.map((c) => String(Math.round(c.systemUs)))],
        ['samples', ...columns.map((c) => String(c.samples))],
      ],
      ['l', ...columns.map(() => 'r')],
    ),
  );
  await stopAll(columns.some((c) => c.errors > 0) ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
