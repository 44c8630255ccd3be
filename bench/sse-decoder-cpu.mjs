#!/usr/bin/env node
// CPU of SseDecoder.push for one stand-in upstream stream (bench/upstream-server.mjs's events, one
// piece of bytes per event), two builds of @switchboard/http ABBA; prints µs per stream.
//
//   node bench/sse-decoder-cpu.mjs /tmp/before/packages/http/dist/sse-parser.js packages/http/dist/sse-parser.js [rounds]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPLY_PIECES, USAGE } from './fixture.mjs';

const [before, after, roundsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node bench/sse-decoder-cpu.mjs <before sse-parser.js> <after sse-parser.js> [rounds, 6]');
  process.exit(2);
}
const load = async (path) => (await import(pathToFileURL(resolve(path)).href)).SseDecoder;
const builds = { before: await load(before), after: await load(after) };
const rounds = Number(roundsArg ?? 6);
const STREAMS = 50_000;

const chunk = (delta, finishReason = null, extra = {}) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-BenchUpstream0000000000000002',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    service_tier: 'default',
    system_fingerprint: 'fp_bench0001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  })}\n\n`;
const encoder = new TextEncoder();
const pieces = [
  chunk({ role: 'assistant', content: '', refusal: null }),
  ...REPLY_PIECES.map((text) => chunk({ content: text })),
  chunk({}, 'stop'),
  chunk({}, null, { choices: [], usage: USAGE }),
  'data: [DONE]\n\n',
].map((text) => encoder.encode(text));

/** µs of CPU per stream over `n` streams; the events counted so the work cannot be dropped. */
const run = (Decoder, n) => {
  let events = 0;
  const start = process.cpuUsage();
  for (let k = 0; k < n; k++) {
    const decoder = new Decoder();
    for (const piece of pieces) events += decoder.push(piece).length;
    events += decoder.end().length;
  }
  const used = process.cpuUsage(start);
  if (events !== n * pieces.length) throw new Error(`expected ${n * pieces.length} events, got ${events}`);
  return (used.user + used.system) / n;
};

for (const Decoder of Object.values(builds)) run(Decoder, STREAMS / 2);
const figures = { before: [], after: [] };
for (let i = 0; i < rounds; i++) {
  for (const name of i % 2 ? ['after', 'before'] : ['before', 'after']) figures[name].push(run(builds[name], STREAMS));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, xs] of Object.entries(figures)) {
  console.log(
    `${name}: ${xs.map((x) => x.toFixed(2)).join(', ')} µs CPU per stream (${pieces.length} events); median ${median(xs).toFixed(2)}`,
  );
}
console.log(`after ÷ before: ${(median(figures.after) / median(figures.before)).toFixed(3)}`);
