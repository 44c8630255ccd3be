import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHttpTransport } from './mcp-http-transport.js';

/**
 * The transport under the SDK's Client against a server written from the spec's wire format
 * (Streamable HTTP, 2025-06-18): a JSON answer, an SSE answer, 202 for notifications, a session id,
 * 405 for the GET stream, a redirect, a stream that ends before its answer. The SDK's own server
 * is the other party in mcp-servers.integration.test.ts.
 */
let server: Server;
let base: string;
const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
const agent = new Agent();
/** Sessions the server has forgotten (it answers 404 to them). */
const gone = new Set<string>();

function answer(res: import('node:http').ServerResponse, id: unknown, result: unknown, sse: boolean) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, result });
  if (sse) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: message\ndata: ${body}\n\n`);
  else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
}

/** Requests the server never answers (`hang`: an event stream left open; `mute`: not even headers), until their connection closes. */
const unanswered: { name: string; closed: Promise<void> }[] = [];

function leaveOpen(res: import('node:http').ServerResponse, name: string) {
  unanswered.push({ name, closed: new Promise<void>((resolve) => res.on('close', () => resolve())) });
  if (name === 'hang') res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': working\n\n');
}

/** The events of the `break` call's stream, by id: a notification, then the answer. */
const numbered: string[] = [];

/**
 * Sends event 1 whole and event 2 (the answer) cut off after its id and half its data, then breaks
 * the connection: the client has seen event 2's id but not event 2.
 */
function breakMidEvent(res: import('node:http').ServerResponse, id: unknown) {
  const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } });
  const body = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'resumed' }] } });
  numbered.length = 0;
  numbered.push(note, body);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`id: 1\nevent: message\ndata: ${note}\n\nid: 2\nevent: message\ndata: ${body.slice(0, 20)}`, () =>
    res.socket?.destroy(),
  );
}

/** A GET with Last-Event-ID: the events after that id (as the spec's resumability asks), then the end. */
function resume(res: import('node:http').ServerResponse, after: string | string[]) {
  const from = Number(after);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    numbered
      .slice(from)
      .map((data, i) => `id: ${from + i + 1}\nevent: message\ndata: ${data}\n\n`)
      .join(''),
  );
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/old') return void res.writeHead(307, { location: '/mcp' }).end();
      if (req.url === '/elsewhere') return void res.writeHead(307, { location: 'http://127.0.0.2:1/mcp' }).end();
      if (req.method === 'GET' && req.headers['last-event-id'] !== undefined) return resume(res, req.headers['last-event-id']);
      // A server stream that ends at once, empty, asking to be opened again 20 ms later.
      if (req.method === 'GET' && req.url === '/quiet')
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('retry: 20\n\n');
      if (req.method === 'GET') return void res.writeHead(405).end();
      if (gone.has(String(req.headers['mcp-session-id']))) return void res.writeHead(404).end('session not found');
      const message = JSON.parse(body);
      if (message.method === 'initialize') {
        res.setHeader('mcp-session-id', 'session-1');
        const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } };
        return answer(res, message.id, result, false);
      }
      if (!('id' in message)) return void res.writeHead(202).end();
      if (message.method === 'tools/list')
        return answer(res, message.id, { tools: [{ name: 'add', inputSchema: { type: 'object' } }] }, true);
      if (message.params?.name === 'break') return breakMidEvent(res, message.id);
      if (message.params?.name === 'hang' || message.params?.name === 'mute') return leaveOpen(res, message.params.name);
      if (message.params?.name === 'vanish')
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing to say\n\n');
      answer(res, message.id, { content: [{ type: 'text', text: String(message.params.arguments.a + 1) }] }, false);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function connect(path: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new McpHttpTransport(`${base}${path}`, { authorization: 'Bearer t' }, agent), { timeout: 2_000 });
  return client;
}

describe('the Streamable HTTP transport', () => {
  it('initializes, then sends the session id and protocol version with every request, and reads JSON and SSE answers', async () => {
    seen.length = 0;
    const client = await connect('/mcp');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add']);
    expect(await client.callTool({ name: 'add', arguments: { a: 41 } })).toMatchObject({ content: [{ text: '42' }] });
    await client.close();
    const [init, ...rest] = seen;
    expect(init).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer t', accept: 'application/json, text/event-stream' },
    });
    expect(init!.headers['mcp-session-id']).toBeUndefined();
    // notifications/initialized (202), the GET stream (405: none), tools/list, tools/call
    expect(rest.map((request) => request.method)).toEqual(['POST', 'GET', 'POST', 'POST']);
    for (const request of rest)
      expect(request.headers).toMatchObject({
        'mcp-session-id': 'session-1',
        'mcp-protocol-version': '2025-06-18',
        authorization: 'Bearer t',
      });
    expect(rest[1]!.headers.accept).toBe('text/event-stream');
  });

  it('follows a redirect within the server’s origin, and not one that leaves it', async () => {
    seen.length = 0;
    const client = await connect('/old');
    expect(await client.callTool({ name: 'add', arguments: { a: 1 } })).toMatchObject({ content: [{ text: '2' }] });
    await client.close();
    expect(seen.filter((request) => request.method === 'POST').map((request) => request.url)).toEqual([
      '/old',
      '/mcp',
      '/old',
      '/mcp',
      '/old',
      '/mcp',
    ]);
    await expect(connect('/elsewhere')).rejects.toThrow(/Error POSTing to endpoint/);
  });

  it('fails a request at once when its event stream ends before the answer (no event id to resume from)', async () => {
    const client = await connect('/mcp');
    await expect(client.callTool({ name: 'vanish', arguments: {} }, undefined, { timeout: 30_000 })).rejects.toThrow(
      'the MCP server ended its event stream before it answered',
    );
    await client.close();
  });

  it('resumes a stream broken in the middle of its answer from the last whole event, and gets the answer', async () => {
    const client = await connect('/mcp');
    // Resumed from event 2 (its id came, the rest did not), the server would send nothing more.
    expect(await client.callTool({ name: 'break', arguments: {} }, undefined, { timeout: 10_000 })).toMatchObject({
      content: [{ text: 'resumed' }],
    });
    const resumed = seen.filter((request) => request.method === 'GET' && request.headers['last-event-id'] !== undefined);
    expect(resumed[0]!.headers['last-event-id']).toBe('1');
    await client.close();
  });

  it('aborts the request of a call the client gave up on (its time-out), so its connection closes at once', async () => {
    const client = await connect('/mcp');
    unanswered.length = 0;
    for (const name of ['hang', 'mute'])
      await expect(client.callTool({ name, arguments: {} }, undefined, { timeout: 200 })).rejects.toThrow(/timed out/i);
    expect(unanswered.map((request) => request.name)).toEqual(['hang', 'mute']);
    // Without the abort each would stay open until undici's own time-outs (300 s).
    const closed = await Promise.race([
      Promise.all(unanswered.map((request) => request.closed)).then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5_000).unref()),
    ]);
    expect(closed).toBe('closed');
    await client.close();
  });

  it('opens a server stream that keeps ending empty again later and later, not at one pace for as long as the session lasts', async () => {
    seen.length = 0;
    const client = await connect('/quiet');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const opened = seen.filter((request) => request.method === 'GET').length;
    await client.close();
    // At the server's 20 ms, some 50 in that second; each wait 1.5 times the one before, 8.
    expect(opened).toBeGreaterThan(1);
    expect(opened).toBeLessThanOrEqual(10);
  });

  it('closes when the server says the session is gone (404), so that a new session is started', async () => {
    const client = await connect('/mcp');
    const closed = new Promise<void>((resolve) => {
      client.onclose = resolve;
    });
    gone.add('session-1');
    await expect(client.callTool({ name: 'add', arguments: { a: 1 } })).rejects.toThrow(/404|session not found/);
    await closed;
    gone.clear();
  });
});
