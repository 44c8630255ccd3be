import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpFetch } from './mcp-fetch.js';

let server: Server;
let base: string;
const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];
const http = mcpFetch();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === '/moved') res.writeHead(307, { location: '/mcp' }).end();
      else if (req.url === '/accepted') res.writeHead(202).end();
      else if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' }).end('data: {"ok":true}\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await http.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the fetch the MCP client is given', () => {
  it('sends the method, headers and JSON text, and answers with the status, headers and body as a Response', async () => {
    const headers = new Headers({ authorization: 'Bearer t', 'content-type': 'application/json' });
    const response = await http.fetch(new URL(`${base}/mcp`), { method: 'POST', headers, body: '{"jsonrpc":"2.0"}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(await response.text()).toBe('data: {"ok":true}\n\n');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"jsonrpc":"2.0"}' });
  });

  it('leaves a redirect to the caller, and answers 202 and 204 without failing', async () => {
    const moved = await http.fetch(`${base}/moved`, { method: 'POST', body: '{}', redirect: 'manual' });
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe('/mcp');
    expect((await http.fetch(`${base}/accepted`, { method: 'POST', body: '{}' })).status).toBe(202);
    const empty = await http.fetch(`${base}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });
});
