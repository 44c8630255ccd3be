// The fake reply receiver of the hub bench: the `replyUrl` of the bench's generic hook. A
// node:http server in the bench process that answers every POST with 200 and records it, with
// the time it arrived, for the bench to match against the messages it sent.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { REPLY_TEXT } from './fixture.mjs';

/**
 * One POST the receiver got, in arrival order.
 * @typedef {object} Delivery
 * @property {string} id the job id (`id` of the body), or '' when the body has none
 * @property {number} at epoch ms (sub-ms) when the request arrived
 * @property {string} [to] `to` of the body: the sender the reply is for
 * @property {string} [key] the idempotency-key header
 * @property {string | null} [problem] what is wrong with the request, or null
 */

/**
 * Starts the receiver on 127.0.0.1 and a free port; every POST goes to `onDelivery`.
 * @param {{ path: string, hook: string, onDelivery: (delivery: Delivery) => void }} options
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startReceiver({ path, hook, onDelivery }) {
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const at = performance.timeOrigin + performance.now();
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 17 });
      res.end('{"received":true}');
      onDelivery(parseDelivery(req, body, at, { path, hook }));
    });
  });
  server.headersTimeout = 66_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** What the generic hook must send: `{id, hook, to, text, model, created}` as JSON, keyed by job id. */
function parseDelivery(req, body, at, expected) {
  const key = req.headers['idempotency-key'];
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return { id: '', at, key, problem: `body is not JSON: ${body.slice(0, 120)}` };
  }
  const id = typeof json?.id === 'string' ? json.id : '';
  return { id, at, to: json?.to, key, problem: problemOf(req, json, id, key, expected) };
}

function problemOf(req, json, id, key, expected) {
  if (req.method !== 'POST' || req.url !== expected.path) return `${req.method} ${req.url} instead of POST ${expected.path}`;
  if (!String(req.headers['content-type']).includes('application/json')) return `content-type is ${req.headers['content-type']}`;
  if (!id) return 'no id in the body';
  if (json.hook !== expected.hook) return `hook is ${json.hook}`;
  if (json.text !== REPLY_TEXT) return `text is not the model's reply: ${String(json.text).slice(0, 80)}`;
  if (typeof json.model !== 'string' || typeof json.created !== 'number') return 'no model or created';
  // One part per reply (a generic hook sends the reply whole): the key is the job id itself.
  if (key !== id) return `idempotency-key '${key}' is not the job id`;
  return null;
}
