import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServerConfig } from '@switchboard/config';
import { eventually, freePort, MCP_STDIO_SERVER, startTestMcpHttpServer, type TestMcpHttpServer } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServers } from './mcp-servers.js';

/**
 * The MCP client against the real test server built with the SDK (packages/testing): as a child
 * process over stdio, and over Streamable HTTP behind a bearer token.
 */
const TOKEN = 'mcp-token-0123456789';
const TOOLS = ['add', 'slow', 'create_ticket', 'huge', 'crash', 'reveal'];
const sideEffects = join(mkdtempSync(join(tmpdir(), 'mcp-')), 'tickets.jsonl');
let http: TestMcpHttpServer;
let servers: McpServers;
const warnings: string[] = [];

beforeAll(async () => {
  http = await startTestMcpHttpServer({ token: TOKEN });
  const configs: Record<string, McpServerConfig> = {
    local: { command: process.execPath, args: [MCP_STDIO_SERVER], env: { MCP_SIDE_EFFECTS: sideEffects }, timeoutMs: 500 },
    remote: { url: http.url, headers: { authorization: `Bearer ${TOKEN}` }, timeoutMs: 2_000 },
    away: { url: `http://127.0.0.1:${await freePort()}/mcp`, headers: {}, timeoutMs: 1_000 },
  };
  servers = new McpServers(configs, {
    reconnectMs: 50,
    maxOutputChars: 1_000,
    log: (level, message, meta) => level === 'warn' && warnings.push(`${message} ${JSON.stringify(meta)}`),
    scrub: (text) => text.replaceAll(TOKEN, '[redacted]'),
  });
  await servers.start();
});

afterAll(async () => {
  await servers?.close();
  await http?.close();
});

describe('MCP servers', () => {
  it('connects stdio and Streamable HTTP servers, lists their tools, and says which server is down', () => {
    const states = Object.fromEntries(servers.states().map((state) => [state.name, state]));
    expect(states.local).toMatchObject({ transport: 'stdio', connected: true, tools: TOOLS, lastError: null });
    expect(states.remote).toMatchObject({ transport: 'http', connected: true, tools: TOOLS, lastError: null });
    expect(states.away).toMatchObject({ transport: 'http', connected: false, tools: [] });
    expect(states.away!.lastError).toMatch(/^connecting: /);
    expect(http.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('offers only granted tools, named <server>__<tool>', () => {
    const offered = servers.offer(['local/add', 'remote', 'away']);
    expect([...offered.keys()]).toEqual(['local__add', ...TOOLS.map((tool) => `remote__${tool}`)]);
    expect(offered.get('local__add')).toMatchObject({ server: 'local', tool: 'add', description: 'Adds two numbers.' });
    expect(offered.get('local__add')!.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
  });

  it('calls a tool on either transport', async () => {
    expect(await servers.call('local', 'add', { a: 2, b: 3 })).toEqual({ text: '5', isError: false });
    expect(await servers.call('remote', 'create_ticket', { title: 'printer' })).toEqual({
      text: 'ticket #1 created: printer',
      isError: false,
    });
    expect(http.tickets).toEqual(['printer']);
  });

  it('leaves nothing on the caller’s signal once a call is over (a job makes many calls under one signal)', async () => {
    const job = new AbortController();
    for (let i = 0; i < 12; i++) expect((await servers.call('remote', 'add', { a: i, b: 1 }, job.signal)).isError).toBe(false);
    // Else each call's listener stays (Node warns past 10), and aborting the job later "cancels" finished calls.
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);
  });

  it('turns a time-out, a server that is away and bad arguments into tool errors', async () => {
    expect(await servers.call('local', 'slow', { ms: 5_000 })).toEqual({
      text: 'Error: slow timed out after 500 ms',
      isError: true,
    });
    expect(await servers.call('away', 'add', { a: 1, b: 1 })).toEqual({
      text: "Error: the tool server 'away' is not connected",
      isError: true,
    });
    const bad = await servers.call('local', 'add', { a: 'one' });
    expect(bad.isError).toBe(true);
    // The server is still there after the time-out.
    expect(await servers.call('local', 'add', { a: 1, b: 1 })).toEqual({ text: '2', isError: false });
  });

  it('caps a huge output and says so', async () => {
    const result = await servers.call('remote', 'huge', { chars: 50_000 });
    expect(result.text).toBe(`${'x'.repeat(1_000)}\n[output cut: 1000 of 50000 characters shown]`);
  });

  it('starts a stdio server again after it crashed, and its tools come back', async () => {
    const crashed = await servers.call('local', 'crash', {});
    expect(crashed.isError).toBe(true);
    await eventually(() => expect(servers.states().find((s) => s.name === 'local')).toMatchObject({ connected: true }), 200, 25);
    expect(await servers.call('local', 'create_ticket', { title: 'after the crash' })).toMatchObject({ isError: false });
    expect(readFileSync(sideEffects, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(servers.states().find((s) => s.name === 'local')!.lastError).toMatch(/crash|closed/);
  });

  it('lists tools again when the server says the list changed', async () => {
    expect(await servers.call('remote', 'reveal', {})).toMatchObject({ text: 'revealed' });
    await eventually(() => expect(servers.offer(['remote/revealed']).has('remote__revealed')).toBe(true), 200, 25);
    expect(await servers.call('remote', 'revealed', {})).toEqual({ text: 'you found me', isError: false });
  });

  it('keeps the servers’ secrets out of what it reports', () => {
    expect(JSON.stringify(servers.states())).not.toContain(TOKEN);
    expect(warnings.join('\n')).not.toContain(TOKEN);
  });
});

describe('McpServers.ready', () => {
  it('connects only the servers named, once, and closes them', async () => {
    const lazy = new McpServers({
      remote: { url: http.url, headers: { authorization: `Bearer ${TOKEN}` }, timeoutMs: 2_000 },
      away: { url: `http://127.0.0.1:${await freePort()}/mcp`, headers: {}, timeoutMs: 1_000 },
    });
    await lazy.ready(['remote']);
    const afterFirst = http.authorizations.length;
    await lazy.ready(['remote']); // the first attempt's promise again: no second session
    expect(http.authorizations.length).toBe(afterFirst);
    const states = Object.fromEntries(lazy.states().map((state) => [state.name, state]));
    expect(states.remote).toMatchObject({ connected: true, lastError: null });
    expect(states.away).toMatchObject({ connected: false, lastError: null }); // never tried
    expect(await lazy.call('remote', 'add', { a: 1, b: 2 })).toEqual({ text: '3', isError: false });
    await lazy.close();
    expect(lazy.states().every((state) => !state.connected)).toBe(true);
  });
});
