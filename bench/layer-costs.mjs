#!/usr/bin/env node
// Where the gateway's CPU per /v1 request goes, layer by layer, by profile attribution: a fresh
// gateway runs under `--cpu-prof` while one scenario loads it, and each CPU sample of the measured
// window is given to the layer of the innermost frame on its stack that belongs to one (a sample
// in Node's socket code called from winston is the log line's; one in zod is validation's). Each
// layer's share of the busy samples × the gateway's CPU µs per request (from /proc, same window)
// is what that layer costs per request. Stand-alone: node bench/layer-costs.mjs <file.cpuprofile>
import { readFileSync } from 'node:fs';
import { markdownTable } from './report.mjs';

const api = (file) => new RegExp(`/apps/api/(?:dist|src)/${file}\\.[jt]s$`);
const pkg = (name, file = '[^/]+') => new RegExp(`/packages/${name}/(?:dist|src)/${file}\\.[jt]s$`);
const nm = (names) => new RegExp(`/node_modules/(?:${names.join('|')})/`);

/**
 * The layers, in the order the table lists them. A frame belongs to the first layer with a rule
 * matching its script (and function, where given). Frames of no layer (Node's own modules,
 * native code) pass the sample on to their caller, and so does a `fallback` layer's frame, which
 * keeps the sample only when no other layer is found above it; a sample with no layer on its whole
 * stack is "Node HTTP, sockets, GC, other".
 */
export const LAYERS = [
  {
    name: 'request context + log line',
    rules: [
      api('middleware/request-context'),
      pkg('logger'),
      nm([
        'winston',
        'winston-transport',
        'logform',
        'safe-stable-stringify',
        'triple-beam',
        'readable-stream',
        'fecha',
        '@colors/colors',
      ]),
    ],
  },
  { name: 'metrics', rules: [api('middleware/v1-metrics'), pkg('metrics'), nm(['prom-client', 'tdigest', 'bintrees'])] },
  { name: 'auth', rules: [api('middleware/api-key-auth')] },
  { name: 'rate limit', rules: [api('middleware/rate-limit'), pkg('state', 'rate-limiter')] },
  {
    name: 'body parse',
    rules: [
      api('middleware/json-guards'),
      api('middleware/json-body'),
      nm([
        'koa-body',
        'co-body',
        'raw-body',
        'inflation',
        'iconv-lite',
        'bytes',
        'type-is',
        'mime-types',
        'mime-db',
        'media-typer',
        '@hapi/bourne',
        'content-type',
        'unpipe',
      ]),
    ],
  },
  { name: 'validation', rules: [api('routes/parse-body'), pkg('protocol'), nm(['zod'])] },
  {
    name: 'metering/usage',
    rules: [
      api('services/metering'),
      pkg('state', '(usage-[^/]+|budget-[^/]+|batched-writer)'),
      pkg('providers', 'usage'),
      nm(['gpt-tokenizer']),
    ],
  },
  {
    name: 'cache lookup',
    rules: [api('services/response-cache'), api('services/canonical-json'), pkg('state', 'response-cache-store')],
  },
  {
    name: 'upstream call',
    rules: [
      api('middleware/client-signal'),
      api('services/v1-call'),
      api('routes/[^/]+'),
      pkg('providers'),
      pkg('http'),
      nm(['undici']),
    ],
  },
  { name: 'response write', rules: [api('sse'), api('services/restamp'), { url: nm(['koa']), fn: /^respond$/ }] },
  {
    // A fallback: a command sent under a layer's frame (the rate limiter's script) is that layer's;
    // what is left is ioredis reading replies and resolving them, under no layer.
    name: 'Redis client (replies, not under a layer)',
    fallback: true,
    rules: [nm(['ioredis', 'redis-parser', 'denque', 'cluster-key-slot', 'standard-as-callback', 'redis-errors'])],
  },
  {
    name: 'Koa, router, app middleware',
    rules: [
      nm([
        'koa',
        'koa-compose',
        '@koa/router',
        'path-to-regexp',
        'delegates',
        'on-finished',
        'ee-first',
        'statuses',
        'accepts',
        'negotiator',
        'vary',
        'cookies',
        'keygrip',
        'http-errors',
        'http-assert',
        'depd',
        'only',
        'encodeurl',
        'escape-html',
        'fresh',
        'parseurl',
        'content-disposition',
        'destroy',
        'debug',
        'ms',
      ]),
      /\/apps\/api\/(?:dist|src)\/[^/]+\.[jt]s$/, // app.ts, route-policy.ts: the app's own middleware
      api('middleware/[^/]+'),
    ],
  },
];
export const OTHER = 'Node HTTP, sockets, GC, other';

function layerOf(callFrame) {
  for (const layer of LAYERS) {
    for (const rule of layer.rules) {
      if (
        rule instanceof RegExp ? rule.test(callFrame.url) : rule.url.test(callFrame.url) && rule.fn.test(callFrame.functionName)
      )
        return layer;
    }
  }
  return null;
}

/**
 * The layer a sample belongs to, from its stack (`{ url, functionName }` frames, innermost first):
 * the innermost frame of a layer, a `fallback` layer's only when no other is found; null for none.
 */
export function layerOfStack(frames) {
  let fallback = null;
  for (const callFrame of frames) {
    const layer = layerOf(callFrame);
    if (!layer) continue;
    if (!layer.fallback) return layer.name;
    fallback ??= layer.name;
  }
  return fallback;
}

/**
 * Busy samples per layer in a profile, between `fromUs` and `toUs` (the profile's own clock:
 * CLOCK_MONOTONIC µs, the same clock as process.hrtime in the bench; omitted: all of it).
 * @returns {{ busy: number, byLayer: Map<string, number> }}
 */
export function attributeLayers(profile, { fromUs = -Infinity, toUs = Infinity } = {}) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const cached = new Map(); // node id → its layer's name (the innermost layer frame from it to the root)
  const layerOfNode = (id) => {
    if (cached.has(id)) return cached.get(id);
    const frames = [];
    for (let at = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at).callFrame);
    const name = layerOfStack(frames);
    cached.set(id, name);
    return name;
  };
  const byLayer = new Map();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas?.[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    const { functionName } = byId.get(id).callFrame;
    if (functionName === '(idle)') return;
    busy++;
    const layer = layerOfNode(id) ?? OTHER;
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + 1);
  });
  return { busy, byLayer };
}

/**
 * The table: per scenario, the gateway's CPU µs per request and each layer's part of it.
 * @param {{ label: string, cpuUsPerRequest: number, busy: number, byLayer: Map<string, number> }[]} rows
 */
export function layerTable(rows) {
  const names = [...LAYERS.map((layer) => layer.name), OTHER];
  const us = (row, name) => ((row.byLayer.get(name) ?? 0) / row.busy) * row.cpuUsPerRequest;
  const cell = (row, name) => {
    const value = us(row, name);
    return `${Math.round(value)} (${((100 * value) / row.cpuUsPerRequest).toFixed(1)} %)`;
  };
  return markdownTable(
    ['layer', ...rows.map((row) => `${row.label}: µs/req`)],
    [
      ...names.map((name) => [name, ...rows.map((row) => cell(row, name))]),
      ['all (CPU µs per request, /proc)', ...rows.map((row) => String(Math.round(row.cpuUsPerRequest)))],
      ['busy samples attributed', ...rows.map((row) => String(row.busy))],
    ],
    ['l', ...rows.map(() => 'r')],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/layer-costs.mjs <file.cpuprofile>');
    process.exit(2);
  }
  const { busy, byLayer } = attributeLayers(JSON.parse(readFileSync(file, 'utf8')));
  for (const [name, n] of [...byLayer].sort((a, b) => b[1] - a[1])) {
    console.log(`${((100 * n) / busy).toFixed(1).padStart(5)} %  ${name}`);
  }
}
