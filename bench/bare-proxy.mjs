#!/usr/bin/env node
// A reference point, not a product: the least a Node proxy in front of the upstream can cost
// on this machine. node:http in, one undici keep-alive Agent out, JSON parsed and re-serialized
// (model rewritten), streams passed through byte for byte; no framework, no validation, no log.
// Run the bench against it with BENCH_GATEWAY_SCRIPT=bench/bare-proxy.mjs: what it reaches is
// the floor the gateway's numbers should be read against. Reads the same env as apps/api.
import { createServer } from 'node:http';
import { forward } from './floor-upstream.mjs';

async function handle(req, res) {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"status":"ok"}');
  }
  let raw = '';
  req.setEncoding('utf8');
  for await (const part of req) raw += part;
  const body = JSON.parse(raw);
  const { model, upstream } = await forward(body);
  if (body.stream) {
    res.writeHead(upstream.statusCode, { 'content-type': upstream.headers['content-type'] });
    for await (const chunk of upstream.body) res.write(chunk);
    return res.end();
  }
  const json = await upstream.body.json();
  json.model = model;
  const out = JSON.stringify(json);
  res.writeHead(upstream.statusCode, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(out),
  });
  res.end(out);
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) =>
  handle(req, res).catch((err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: String(err?.message ?? err), type: 'api_error' } }));
  }),
);
server.listen(Number(process.env.PORT), process.env.HOST || '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
