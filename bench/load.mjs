// The load generator: a fixed number of in-flight loops ("connections") over one undici
// keep-alive Pool, bounded in time and in count, timing every request with hrtime.
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { REPLY_TEXT } from './fixture.mjs';

/**
 * @typedef {object} Target
 * @property {string} name `direct` or `gateway`
 * @property {string} origin e.g. `http://127.0.0.1:4000`
 * @property {string} path e.g. `/v1/chat/completions`
 * @property {string} model the model id this target knows the bench model by
 * @property {Record<string, string>} headers
 */

/**
 * One measured run: raw samples, so that runs of several rounds can be pooled before percentiles.
 * @typedef {object} Run
 * @property {number[]} latencies ms, one per request completed in the measured window
 * @property {number[]} ttfbs ms to the first body byte (streams only)
 * @property {number} errors non-200s, bad bodies and transport failures
 * @property {string | null} firstError what the first error was, to show when a row is flagged
 * @property {number} elapsedMs
 * @property {Record<string, number> | null} cpuMs CPU time each probed process spent in the window
 * @property {number | null} [listenDrops] bursts only: connections refused by a full listen queue
 *   meanwhile, machine-wide (null where /proc cannot tell)
 */

/**
 * @typedef {object} Result
 * @property {number} requests
 * @property {number} errors
 * @property {string | null} firstError
 * @property {number} rps
 * @property {{ p50: number, p99: number }} latency in ms
 * @property {{ p50: number, p99: number } | null} ttfb in ms (streams only)
 * @property {Record<string, number> | null} cpuUsPerRequest µs of CPU per request, per probed process
 * @property {Record<string, number> | null} cpuShare CPU used per probed process, in cores (1 = one core busy)
 */

const NS_PER_MS = 1e6;

/** A realistic small chat request; the body is built once per target and reused. */
export function requestBody(model, stream, extra = {}) {
  return JSON.stringify({
    ...extra,
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant for the Switchboard team.' },
      { role: 'user', content: 'In one sentence: what does a chatbot gateway do with my request?' },
    ],
    temperature: 0.2,
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
  });
}

/**
 * Warms up for `warmupMs`, then measures for `measureMs`, with `connections` loops each keeping
 * one request in flight. Each phase also stops after `maxRequests`, so a run always ends.
 * `cpuProbe`, when given, returns CPU ms so far per process; it is read around the measured phase.
 * @param {Target} target
 * @param {{ stream: boolean, connections: number, warmupMs: number, measureMs: number, maxRequests: number,
 *   cpuProbe?: () => Record<string, number> | null }} options
 * @returns {Promise<Run>}
 */
export async function measure(target, { stream, connections, warmupMs, measureMs, maxRequests, cpuProbe }) {
  const pool = new Pool(target.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const request = {
    path: target.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', ...target.headers },
    body: requestBody(target.model, stream),
  };
  try {
    await drive(pool, request, stream, connections, warmupMs, maxRequests, newSamples());
    const samples = newSamples();
    const cpuBefore = cpuProbe?.() ?? null;
    const started = process.hrtime.bigint();
    await drive(pool, request, stream, connections, measureMs, maxRequests, samples);
    const elapsedMs = Number(process.hrtime.bigint() - started) / NS_PER_MS;
    return { ...samples, elapsedMs, cpuMs: cpuSince(cpuBefore, cpuProbe?.() ?? null) };
  } finally {
    await pool.close();
  }
}

/**
 * One wave of `streams` streaming requests started together, each on a connection of its own,
 * the upstream writing each event `chunkMs` after the previous one (`bench_chunk_ms`): what a
 * thousand chat users at once look like. A small wave first warms both processes up.
 * @param {Target} target
 * @param {{ streams: number, chunkMs: number, cpuProbe?: () => Record<string, number> | null }} options
 * @returns {Promise<Run>}
 */
export async function burst(target, { streams, chunkMs, cpuProbe }) {
  const pool = new Pool(target.origin, { connections: streams, pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const request = {
    path: target.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...target.headers },
    body: requestBody(target.model, true, { bench_chunk_ms: chunkMs }),
  };
  try {
    await Promise.all(Array.from({ length: Math.min(50, streams) }, () => once(pool, request, true, newSamples())));
    const samples = newSamples();
    const cpuBefore = cpuProbe?.() ?? null;
    const dropsBefore = listenDrops();
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: streams }, () => once(pool, request, true, samples)));
    const elapsedMs = Number(process.hrtime.bigint() - started) / NS_PER_MS;
    const dropsAfter = listenDrops();
    const dropped = dropsBefore === null || dropsAfter === null ? null : dropsAfter - dropsBefore;
    return { ...samples, elapsedMs, cpuMs: cpuSince(cpuBefore, cpuProbe?.() ?? null), listenDrops: dropped };
  } finally {
    await pool.close();
  }
}

/**
 * Connections the kernel refused so far because a listener's queue was full (TcpExt ListenDrops,
 * the whole machine; Linux, else null). Each such client retries its SYN a second later, so a burst
 * that drops any has a TTFB tail of a second or more that says nothing about the server's code.
 */
function listenDrops() {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'))
      .map((line) => line.split(/\s+/));
    const at = names.indexOf('ListenDrops');
    return at > 0 ? Number(values[at]) : null;
  } catch {
    return null;
  }
}

/** CPU ms each probed process spent between two probes; null when either could not be read. */
function cpuSince(before, after) {
  if (!before || !after) return null;
  return Object.fromEntries(Object.keys(after).map((name) => [name, after[name] - before[name]]));
}

function newSamples() {
  return { latencies: [], ttfbs: [], errors: 0, firstError: null };
}

async function drive(pool, request, stream, connections, durationMs, maxRequests, samples) {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(durationMs * NS_PER_MS));
  let issued = 0;
  const loop = async () => {
    while (issued < maxRequests && process.hrtime.bigint() < deadline) {
      issued++;
      await once(pool, request, stream, samples);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
}

async function once(pool, request, stream, samples) {
  const started = process.hrtime.bigint();
  let firstByte = 0n;
  let problem = null;
  try {
    const response = await pool.request(request);
    let text = '';
    if (stream) {
      response.body.setEncoding('utf8');
      for await (const part of response.body) {
        if (firstByte === 0n) firstByte = process.hrtime.bigint();
        text += part;
      }
    } else {
      text = await response.body.text();
    }
    if (response.statusCode !== 200) problem = `status ${response.statusCode}: ${text.slice(0, 200)}`;
    else problem = stream ? checkStream(text, response.headers['content-type']) : checkCompletion(text);
  } catch (err) {
    problem = `${err?.code ?? err?.name ?? 'error'}: ${err?.message ?? err}`;
  }
  const ended = process.hrtime.bigint();
  samples.latencies.push(Number(ended - started) / NS_PER_MS);
  if (firstByte !== 0n) samples.ttfbs.push(Number(firstByte - started) / NS_PER_MS);
  if (problem) {
    samples.errors++;
    samples.firstError ??= problem;
  }
}

/** Returns what is wrong with a non-streaming body, or null when it is the expected completion. */
function checkCompletion(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return `body is not JSON: ${text.slice(0, 120)}`;
  }
  if (json?.object !== 'chat.completion') return `object is ${json?.object}`;
  if (json.choices?.[0]?.message?.content !== REPLY_TEXT) return 'unexpected message content';
  if (!(json.usage?.total_tokens > 0)) return 'no usage';
  return null;
}

/** Returns what is wrong with an SSE body, or null when its chunks spell the reply and end in [DONE]. */
function checkStream(text, contentType) {
  if (!String(contentType).includes('text/event-stream')) return `content-type is ${contentType}`;
  const frames = text.split('\n\n');
  if (frames.pop() !== '' || frames.pop() !== 'data: [DONE]') return 'stream does not end with data: [DONE]';
  let content = '';
  let finished = false;
  for (const frame of frames) {
    if (!frame.startsWith('data: ')) return `unexpected frame: ${frame.slice(0, 80)}`;
    let json;
    try {
      json = JSON.parse(frame.slice(6));
    } catch {
      return `frame is not JSON: ${frame.slice(0, 80)}`;
    }
    if (json?.object !== 'chat.completion.chunk') return `chunk object is ${json?.object}`;
    const choice = json.choices?.[0];
    if (typeof choice?.delta?.content === 'string') content += choice.delta.content;
    if (choice?.finish_reason === 'stop') finished = true;
  }
  if (content !== REPLY_TEXT) return 'chunks do not spell the reply';
  if (!finished) return 'no finish_reason';
  return null;
}

/**
 * Pools runs of the same scenario and target (one per round) into one result.
 * @param {Run[]} runs
 * @returns {Result}
 */
export function summarize(runs) {
  const latencies = runs.flatMap((run) => run.latencies);
  const ttfbs = runs.flatMap((run) => run.ttfbs);
  const elapsedMs = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  const cpuMs = runs.every((run) => run.cpuMs)
    ? runs.reduce((sum, run) => {
        for (const [name, ms] of Object.entries(run.cpuMs)) sum[name] = (sum[name] ?? 0) + ms;
        return sum;
      }, {})
    : null;
  const per = (fn) => (cpuMs ? Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, fn(ms)])) : null);
  return {
    requests: latencies.length,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    firstError: runs.find((run) => run.firstError)?.firstError ?? null,
    rps: (latencies.length / elapsedMs) * 1000,
    latency: percentiles(latencies),
    ttfb: ttfbs.length ? percentiles(ttfbs) : null,
    cpuUsPerRequest: per((ms) => (ms * 1000) / latencies.length),
    cpuShare: per((ms) => ms / elapsedMs),
  };
}

/** Nearest-rank p50 and p99 of a list of ms; NaN for an empty list. */
export function percentiles(values) {
  const sorted = Float64Array.from(values).sort();
  const at = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN);
  return { p50: at(50), p99: at(99) };
}
