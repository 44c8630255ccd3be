#!/usr/bin/env node
// Is the observability cost's swing a transient after a twin sat idle? Starts the cost section's
// two twins (observability on and off, observability-cost.mjs's COST_SWITCHES) on one stand-in
// upstream and, in ABBA rounds, drives each with no warm-up for `windows` windows of
// `windowSeconds` in a row, reading each window's req/s and the twin's CPU µs per request (/proc):
//   node bench/cost-transient.mjs [rounds] [scenario] [windows] [windowSeconds]
// e.g. node bench/cost-transient.mjs 6 json-32 12 0.5
// It prints, per window index, each twin's median over the rounds, split by whether the twin ran
// first in its round (it had just run the round before's last pass: no idle) or second (it sat
// idle while the other ran), and the on ÷ off of each. A transient shows as early windows unlike
// the late ones; a bias of the cost measure as one that differs between the twins.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchScratch, Child, deleteRedisKeys, freePort, startUpstream, waitForHealth } from './children.mjs';
import { processCpuMs } from './cpu.mjs';
import { benchConfig, scenariosFromArg, switchboardEnv } from './env.mjs';
import { API_KEY } from './fixture.mjs';
import { measure } from './load.mjs';
import { COST_SWITCHES } from './observability-cost.mjs';
import { markdownTable, median } from './report.mjs';

const [roundsArg, scenarioArg, windowsArg, secondsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 6);
const [scenario] = scenariosFromArg(scenarioArg, 'json-32');
const windows = Number(windowsArg ?? 12);
const windowMs = Number(secondsArg ?? 0.5) * 1000;
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `bench-${randomBytes(6).toString('hex')}`;
const { tempDir, children, fail } = benchScratch('cost-transient');
const apiMain = new URL('../apps/api/dist/main.js', import.meta.url).pathname;

const { upstream, port: upstreamPort } = await startUpstream('cost-transient');
children.push(upstream);
const twins = {};
for (const side of ['on', 'off']) {
  const config = join(tempDir, `${side}.json`);
  writeFileSync(config, JSON.stringify(benchConfig(upstreamPort, { apiKey: API_KEY, extra: COST_SWITCHES[side] })));
  const port = await freePort();
  const child = new Child(side, [apiMain], {
    env: switchboardEnv({ port, configPath: config, redisUrl, prefix, logLevel: 'info' }),
    stdout: 'ignore',
    onUnexpectedExit: fail,
  });
  children.push(child);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(origin, child);
  twins[side] = {
    name: side,
    origin,
    path: '/v1/chat/completions',
    model: 'bench/gpt-4o-mini',
    headers: { authorization: `Bearer ${API_KEY}` },
    pid: child.process.pid,
  };
}

// samples[side][position][window] = [{ rps, cpuUs }, …] over the rounds
const samples = { on: { first: [], second: [] }, off: { first: [], second: [] } };
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
  for (const [at, side] of order.entries()) {
    // Round 1's twins are both fresh: kept apart as position "fresh".
    const position = round === 1 ? 'fresh' : at === 0 ? 'first' : 'second';
    samples[side][position] ??= [];
    const rps = [];
    for (let w = 0; w < windows; w++) {
      const target = twins[side];
      const run = await measure(target, {
        stream: scenario.stream,
        connections: scenario.connections,
        warmupMs: 0,
        measureMs: windowMs,
        maxRequests: 1_000_000,
        cpuProbe: () => ({ gateway: processCpuMs(target.pid) }),
      });
      if (run.errors) fail(`${side}: ${run.errors} errors, first: ${run.firstError}`);
      const sample = {
        rps: (run.latencies.length / run.elapsedMs) * 1000,
        cpuUs: (run.cpuMs.gateway * 1000) / run.latencies.length,
      };
      samples[side][position][w] ??= [];
      samples[side][position][w].push(sample);
      rps.push(Math.round(sample.rps));
    }
    console.error(`round ${round} ${side} (${position}): ${rps.join(' ')}`);
  }
}

const at = (side, position, w, key) => median((samples[side][position]?.[w] ?? []).map((s) => s[key]));
for (const position of ['fresh', 'first', 'second']) {
  console.log(
    `\n${scenario.id}, twins ${position === 'fresh' ? 'fresh (round 1)' : position === 'first' ? 'run first in their round (no idle before)' : 'run second in their round (idle while the other ran)'}; medians over the rounds:\n`,
  );
  console.log(
    markdownTable(
      ['window', 'from (s)', 'off req/s', 'on req/s', 'on ÷ off', 'off µs/req', 'on µs/req', 'on ÷ off CPU'],
      Array.from({ length: windows }, (_, w) => {
        const off = at('off', position, w, 'rps');
        const on = at('on', position, w, 'rps');
        const offCpu = at('off', position, w, 'cpuUs');
        const onCpu = at('on', position, w, 'cpuUs');
        return [
          String(w + 1),
          ((w * windowMs) / 1000).toFixed(1),
          String(Math.round(off)),
          String(Math.round(on)),
          (on / off).toFixed(3),
          String(Math.round(offCpu)),
          String(Math.round(onCpu)),
          (onCpu / offCpu).toFixed(3),
        ];
      }),
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
}
await Promise.allSettled(children.map((child) => child.stop()));
await deleteRedisKeys(redisUrl, prefix).catch(() => {});
process.exit(0);
