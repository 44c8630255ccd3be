#!/usr/bin/env node
// The request log line alone: CPU µs per `logger.info` of the line request-context writes, with the
// API's secrets and default fields, each line with its own request id and ms (as in the server),
// 32 lines per event-loop turn (as under load), into a stream that keeps nothing. Builds nothing;
// run `npx turbo run build` first. A second build's logger (e.g. a before worktree's) can be named
// to compare:
//   node bench/log-line.mjs [path/to/packages/logger/dist/index.js]
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';

const modulePath = process.argv[2] ?? new URL('../packages/logger/dist/index.js', import.meta.url).pathname;
const { createLogger } = await import(modulePath);
const sink = new Writable({ decodeStrings: false, write: (_chunk, _encoding, done) => done() });
const logger = createLogger({
  level: 'info',
  secrets: ['sk-bench-provider-key-1234', 'bench-hook-token-5678'],
  defaultMeta: { service: 'api' },
  stream: sink,
});
// Ids and times made beforehand, so the rounds time the logger, not randomUUID.
const ids = Array.from({ length: 4096 }, () => randomUUID());
const times = Array.from({ length: 4099 }, () => Math.round(Math.random() * 200_000) / 100);
let n = 0;
const line = () => ({
  message: 'request',
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  ms: times[n % times.length],
  model: 'gpt-4o-mini',
  request_id: ids[n++ % ids.length],
});
const turn = () => new Promise((resolve) => setImmediate(resolve));
const LINES = 200_000;
const PER_TURN = 32;
async function run(lines) {
  for (let i = 0; i < lines / PER_TURN; i++) {
    for (let j = 0; j < PER_TURN; j++) logger.info(line());
    await turn();
  }
}
await run(20_000); // warm-up
const results = [];
for (let round = 0; round < 5; round++) {
  const cpu = process.cpuUsage();
  await run(LINES);
  await turn();
  const used = process.cpuUsage(cpu);
  results.push((used.user + used.system) / LINES);
}
results.sort((a, b) => a - b);
console.log(`log line: ${results[2].toFixed(2)} µs CPU per line (median of 5 rounds of ${LINES})`);
