#!/usr/bin/env node
// A stand-in OpenAI-compatible upstream for the gateway bench: it answers POST
// /v1/chat/completions at once with a fixed completion (or, with `stream: true`, a fixed SSE
// stream), so that what the bench measures is the gateway, not a model. node:http only.
// A request with `bench_chunk_ms: N` (an unknown parameter the gateway passes on) gets its stream
// slowly, as a model writes it: headers at once, then each event N ms after the previous one.
// Prints its port on stdout once it listens; exits on SIGTERM/SIGINT or when its stdin closes
// (the bench died without cleaning up).
//
// The model `paced` answers like a real model instead (for the live-reply scenario of the hub
// bench): it thinks BENCH_PACED_TTFT_MS before the first token, then sends PACED_PIECES one every
// BENCH_PACED_TOKEN_MS (a non-streamed answer comes whole after the same total time), and prints
// `first-token <epoch ms request arrived> <epoch ms first token written> <last user text as JSON>`
// on stdout for every streamed answer, so the bench can set first visible text against it.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_KEY, PACED_PIECES, REPLY_PIECES, REPLY_TEXT, USAGE } from './fixture.mjs';

const CREATED = 1_760_000_000;
const MODEL = 'gpt-4o-mini-2024-07-18';
const completion = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-BenchUpstream0000000000000001',
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: REPLY_TEXT, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
    service_tier: 'default',
    system_fingerprint: 'fp_bench0001',
  }),
);

const chunk = (delta, finishReason = null, extra = {}) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-BenchUpstream0000000000000002',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    service_tier: 'default',
    system_fingerprint: 'fp_bench0001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  })}\n\n`;

// One write per event, as a real upstream sends them, but with no delay between them. A stream
// that asks for usage (stream_options.include_usage) gets `"usage":null` on every chunk but the
// last, which holds the usage (OpenAI's API reference, ChatCompletionStreamOptions: "All other
// chunks will also include a usage field, but with a null value").
const streamEventsOf = (extra) => [
  chunk({ role: 'assistant', content: '', refusal: null }, null, extra),
  ...REPLY_PIECES.map((text) => chunk({ content: text }, null, extra)),
  chunk({}, 'stop', extra),
];
const streamEvents = streamEventsOf({});
const usageEvent = chunk({}, null, { choices: [], usage: USAGE });
const streamEventsWithUsage = [...streamEventsOf({ usage: null }), usageEvent];
const DONE = 'data: [DONE]\n\n';

function sendError(res, status, message, type, code) {
  const body = JSON.stringify({ error: { message, type, param: null, code } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Each event `chunkMs` after the previous one; stops if the client goes away. */
async function writeSlowly(res, events, chunkMs) {
  res.flushHeaders();
  for (const event of events) {
    await new Promise((resolve) => setTimeout(resolve, chunkMs));
    if (res.destroyed) return;
    res.write(event);
  }
  res.end(DONE);
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return sendError(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', 'unknown_url');
    }
    if (req.headers.authorization !== `Bearer ${API_KEY}`) {
      return sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      return sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    }
    if (body?.model === 'paced') return void answerPaced(body, res);
    if (!body?.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const events = body.stream_options?.include_usage ? streamEventsWithUsage : streamEvents;
    const chunkMs = Number(body.bench_chunk_ms) || 0;
    if (chunkMs > 0) return void writeSlowly(res, events, chunkMs);
    for (const event of events) res.write(event);
    res.end(DONE);
  });
});
server.headersTimeout = 66_000;

const TTFT_MS = Number(process.env.BENCH_PACED_TTFT_MS ?? 300);
const TOKEN_MS = Number(process.env.BENCH_PACED_TOKEN_MS ?? 25);
const epochMs = () => performance.timeOrigin + performance.now();

async function answerPaced(body, res) {
  const arrived = epochMs();
  const last = body.messages?.at(-1)?.content;
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  if (!body.stream) {
    await sleep(TTFT_MS + TOKEN_MS * (PACED_PIECES.length - 1));
    const text = JSON.stringify({
      ...JSON.parse(completion.toString()),
      choices: [{ index: 0, message: { role: 'assistant', content: PACED_PIECES.join('') }, finish_reason: 'stop' }],
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: '' }));
  await sleep(TTFT_MS);
  for (let i = 0; i < PACED_PIECES.length && !closed; i++) {
    if (i > 0) await sleep(TOKEN_MS);
    res.write(chunk({ content: PACED_PIECES[i] }));
    if (i === 0) process.stdout.write(`first-token ${arrived.toFixed(1)} ${epochMs().toFixed(1)} ${JSON.stringify(last)}\n`);
  }
  if (!closed) res.end(`${chunk({}, 'stop')}${DONE}`);
}

function stop() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

// A backlog as deep as a provider's (the kernel clamps it to net.core.somaxconn): with Node's 511, a
// burst of 1,000 connects (sse-1000-slow) had some SYNs dropped and retried a second later, in
// direct's TTFB and in the gateway's alike, a whole second of noise in the p99 of either.
server.listen(Number(process.env.PORT ?? 0), process.env.HOST || '127.0.0.1', 4096, () => {
  process.stdout.write(`${server.address().port}\n`);
});
