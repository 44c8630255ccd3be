#!/usr/bin/env node
// The upstream call alone, client against client, in one process: how much CPU this process
// spends per POST to the stand-in upstream (bench/upstream-server.mjs, a child process, so its
// CPU is not counted) with undici's `request` over an Agent (what packages/providers uses) and
// with node:http over a keep-alive `http.Agent`, for a JSON chat completion (body read and
// parsed) and for a stream (every chunk read). Each call carries an AbortSignal and a timer, as
// the provider's do. Rounds run ABBA, each client for BENCH_SECONDS; the figure to read is the
// median of the rounds' ratios, since both sides of a round see the same machine.
//   node bench/upstream-client.mjs [rounds] [json-32,sse-8] [clients]
// clients: a comma list of undici, undici-origin (agent.request with origin and path: no URL
// parse), undici-pool, http, http-lean (default undici,http).
import { once } from 'node:events';
import http from 'node:http';
import { Agent, Pool, request } from 'undici';
import { startUpstream } from './children.mjs';
import { cpuPerCall } from './cpu.mjs';
import { numberFromEnv, scenariosFromArg } from './env.mjs';
import { API_KEY, REPLY_TEXT } from './fixture.mjs';

const [roundsArg, scenarioArg, clientArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 6);
const scenarios = scenariosFromArg(scenarioArg, 'json-32,sse-8');
const measureMs = numberFromEnv('BENCH_SECONDS', 2, { positive: true }) * 1000;
const TIMEOUT_MS = 60_000;

const { upstream, port } = await startUpstream('upstream-client');
const url = `http://127.0.0.1:${port}/v1/chat/completions`;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${API_KEY}`,
};
const bodyOf = (stream) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say something about Switchboard.' }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

/** One call's surroundings as the provider has them: a signal and a timer cleared once headers are in. */
function deadline() {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), TIMEOUT_MS);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

async function readAll(body, stream) {
  if (stream) {
    let n = 0;
    for await (const chunk of body) n += chunk.length;
    if (n < 100) throw new Error('short stream');
    return;
  }
  const parts = [];
  for await (const chunk of body) parts.push(chunk);
  const json = JSON.parse(Buffer.concat(parts).toString('utf8'));
  if (json.choices[0].message.content !== REPLY_TEXT) throw new Error('wrong answer');
}

/** A call through undici: `send(body, signal)` starts the request; the rest is the same for every variant. */
function undiciCall(send) {
  return async (stream) => {
    const d = deadline();
    let response;
    try {
      response = await send(bodyOf(stream), d.signal);
    } finally {
      d.clear();
    }
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
    await readAll(response.body, stream);
  };
}

const undiciAgent = () => new Agent({ keepAliveTimeout: 30_000, connections: 1024, pipelining: 1, connect: { timeout: 10_000 } });
const origin = `http://127.0.0.1:${port}`;
const path = '/v1/chat/completions';

const clients = {
  undici() {
    const agent = undiciAgent();
    return undiciCall((body, signal) => request(url, { dispatcher: agent, method: 'POST', headers, body, signal }));
  },
  'undici-origin'() {
    const agent = undiciAgent();
    return undiciCall((body, signal) => agent.request({ origin, path, method: 'POST', headers, body, signal }));
  },
  'undici-pool'() {
    const pool = new Pool(origin, { keepAliveTimeout: 30_000, connections: 1024, pipelining: 1 });
    return undiciCall((body, signal) => pool.request({ path, method: 'POST', headers, body, signal }));
  },
  http() {
    const agent = httpAgent();
    return async (stream) => {
      const d = deadline();
      const req = httpPost(agent, bodyOf(stream), d.signal);
      let response;
      try {
        [response] = await once(req, 'response');
      } finally {
        d.clear();
      }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      await readAll(response, stream);
    };
  },
  /** node:http as cheaply as it goes: no AbortSignal (a timer destroys the request), the body read with 'data' events. */
  'http-lean'() {
    const agent = httpAgent();
    return (stream) =>
      new Promise((resolve, reject) => {
        const req = httpPost(agent, bodyOf(stream));
        const timer = setTimeout(() => req.destroy(new Error('timeout')), TIMEOUT_MS);
        req.on('error', reject);
        req.on('response', (response) => {
          clearTimeout(timer);
          if (response.statusCode !== 200) return reject(new Error(`status ${response.statusCode}`));
          const parts = [];
          response.on('data', (chunk) => parts.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            if (stream ? text.length < 100 : JSON.parse(text).choices[0].message.content !== REPLY_TEXT) {
              reject(new Error('wrong answer'));
            } else resolve();
          });
        });
      });
  },
};

const httpAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1024, keepAliveMsecs: 30_000 });

/** The POST, sent; `signal` as http.request takes it. */
function httpPost(agent, body, signal) {
  const headersWithLength = { ...headers, 'content-length': Buffer.byteLength(body) };
  const req = http.request({ agent, host: '127.0.0.1', port, path, method: 'POST', headers: headersWithLength, signal });
  req.end(body);
  return req;
}

const names = (clientArg ?? 'undici,http').split(',');
for (const name of names) if (!clients[name]) throw new Error(`unknown client ${name}`);
const calls = Object.fromEntries(names.map((name) => [name, clients[name]()]));

/** `connections` loops calling for `ms`; CPU µs of this process per call. */
function run(call, stream, connections, ms) {
  return cpuPerCall(() => call(stream), connections, ms);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [base, ...others] = names;
console.log(
  `| scenario | ${names.map((n) => `${n} CPU µs/call`).join(' | ')} | ${others.map((n) => `${n} ÷ ${base} per round (median)`).join(' | ')} |`,
);
console.log(`|:--|${names.map(() => '--:').join('|')}|${others.map(() => ':--').join('|')}|`);
for (const scenario of scenarios) {
  for (const name of names) await run(calls[name], scenario.stream, scenario.connections, 500); // warm-up
  const us = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) us[name].push((await run(calls[name], scenario.stream, scenario.connections, measureMs)).usPerCall);
  }
  const cells = others.map((name) => {
    const ratios = us[name].map((value, i) => value / us[base][i]);
    return `${ratios.map((r) => r.toFixed(2)).join(' ')} (${median(ratios).toFixed(3)})`;
  });
  console.log(`| ${scenario.id} | ${names.map((n) => Math.round(median(us[n]))).join(' | ')} | ${cells.join(' | ')} |`);
}
await upstream.stop();
process.exit(0);
