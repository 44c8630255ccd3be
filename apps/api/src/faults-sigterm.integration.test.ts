import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, type IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  answerText,
  chunkBody,
  deleteKeys,
  freePort,
  type LocalServer,
  lastUserText,
  openSse,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
  testRedisUrl,
  writeSse,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedProcess, spawnApiProcess, spawnLoggingWorkerProcess } from './test-support/spawn-process.js';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';

const TOKEN = 'sigterm-token-0123456789';

/** A gate the test opens: the upstream holds its answer until `release()`. */
function gate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

/** Reads a streamed body as it arrives; `ended` stays false while the stream is open. */
function readAll(body: AsyncIterable<Uint8Array>) {
  const decoder = new TextDecoder();
  const state = { text: '', ended: false, cut: false };
  const done = (async () => {
    try {
      for await (const chunk of body) state.text += decoder.decode(chunk, { stream: true });
    } catch {
      state.cut = true; // the connection closed before the response's end
    } finally {
      state.ended = true;
    }
  })();
  return Object.assign(state, { done });
}

/** A fetch body as an async iterable (the DOM typings of ReadableStream lack the iterator). */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

const streamRequest = JSON.stringify({ model: 'mock/m', stream: true, messages: [{ role: 'user', content: 'hold on' }] });

/** The same request over node:http and a given agent, whose kept-alive connection the test can reuse. */
function postStreamOver(agent: Agent, port: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
      },
      resolve,
    );
    req.once('error', reject);
    req.end(streamRequest);
  });
}

function getOver(agent: Agent, port: number, path: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, agent, path }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('error', reject);
    req.end();
  });
}

/** True when a new TCP connection to the port is refused. */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('the API process on SIGTERM', () => {
  let upstream: LocalServer;
  let dir: string;
  let configPath: string;
  let api: SpawnedProcess | undefined;
  let prefix: string | undefined;
  let holds = gate();

  beforeAll(async () => {
    upstream = await startOpenAIUpstream();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-sigterm-'));
    configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        defaultModel: 'mock/m',
        providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
      }),
    );
  });

  afterEach(async () => {
    holds.release();
    if (api && api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
    await api?.exited;
    if (prefix) await deleteKeys(prefix);
  });

  afterAll(async () => {
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the API process with its own prefix; the upstream sends one chunk, then holds. */
  async function startApi(drainMs: number): Promise<{ port: number; api: SpawnedProcess }> {
    holds = gate();
    const { released } = holds;
    upstream.handle(async (_req, res) => {
      openSse(res);
      writeSse(res, chunkBody('m', { role: 'assistant', content: 'first ' }));
      await released;
      writeSse(res, chunkBody('m', { content: 'second' }));
      writeSse(res, chunkBody('m', {}, 'stop'));
      writeSse(res, '[DONE]');
      res.end();
    });
    const port = await freePort();
    prefix = `test-${randomUUID()}`;
    api = spawnApiProcess({
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: testRedisUrl(),
      SWITCHBOARD_REDIS_PREFIX: prefix,
      SWITCHBOARD_CONFIG: configPath,
      SWITCHBOARD_DRAIN_MS: String(drainMs),
      LOG_LEVEL: 'warn',
    });
    await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200), 500);
    return { port, api };
  }

  /** A stream in flight: its first chunk has arrived, the rest waits for `holds.release()`. */
  async function heldStream(status: number | undefined, chunks: AsyncIterable<Uint8Array>) {
    expect(status).toBe(200);
    const stream = readAll(chunks);
    await eventually(() => expect(stream.text).toContain('first '), 250);
    return stream;
  }

  /** The stream request with fetch, a keep-alive client as the openai package uses. */
  async function postStream(port: number) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamRequest,
    });
    return heldStream(res.status, chunksOf(res.body!));
  }

  it('refuses new connections, finishes the stream in flight, then exits 0', async () => {
    const { port, api } = await startApi(10_000);
    const stream = await postStream(port);

    api.child.kill('SIGTERM');
    await eventually(async () => expect(await refusesConnections(port)).toBe(true), 250);
    expect(stream.ended).toBe(false);

    holds.release();
    await stream.done;
    expect(stream.cut).toBe(false);
    expect(stream.text).toContain('"content":"second"');
    expect(stream.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await api.exited).toBe(0);
  });

  it('cuts a stream that outlives the drain deadline and still exits 0', async () => {
    const { port, api } = await startApi(500);
    const stream = await postStream(port);

    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    await stream.done;
    expect(stream.text).not.toContain('[DONE]');
    expect(stream.text).not.toContain('second');
  });

  it('serves no new request on a connection kept alive across SIGTERM', async () => {
    const { port, api } = await startApi(3_000);
    // One socket, kept alive: the next request reuses the stream's connection, as HTTP clients do.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const res = await postStreamOver(agent, port);
      const stream = await heldStream(res.statusCode, res);

      api.child.kill('SIGTERM');
      await eventually(async () => expect(await refusesConnections(port)).toBe(true), 250);
      holds.release();
      await stream.done;
      expect(stream.text.endsWith('data: [DONE]\n\n')).toBe(true);

      const next = await getOver(agent, port, '/health').catch((err: NodeJS.ErrnoException) => err.code);
      expect(next).not.toBe(200);
    } finally {
      agent.destroy();
    }
    expect(await api.exited).toBe(0);
  });
});

describe('the worker process on SIGTERM with a job active', () => {
  let upstream: LocalServer;
  let receiver: LocalServer;
  let gateway: TestGateway;
  let worker: SpawnedProcess | undefined;

  beforeAll(async () => {
    upstream = await startOpenAIUpstream();
    receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    gateway = await startGateway({
      config: {
        defaultModel: 'mock/m',
        providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
        hooks: { ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in` } },
        worker: { attempts: 3, backoffMs: 100 },
      },
    });
  });

  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await worker?.exited;
    await gateway?.close();
    await upstream?.close();
    await receiver?.close();
  });

  it('finishes the active job, delivers its reply once, then exits 0', async () => {
    const { released, release } = gate();
    let reached!: () => void;
    const reachedUpstream = new Promise<void>((resolve) => {
      reached = resolve;
    });
    upstream.handle(async (req, res) => {
      reached();
      await released;
      answerText(req, res, `answer to ${lastUserText(req)}`);
    });

    worker = spawnLoggingWorkerProcess({
      REDIS_URL: gateway.settings.redisUrl,
      SWITCHBOARD_REDIS_PREFIX: gateway.prefix,
      SWITCHBOARD_CONFIG: gateway.settings.configPath ?? '',
      LOG_LEVEL: 'info', // its 'worker stopping' line tells the test the signal was handled
    });
    const res = await fetch(`${gateway.url}/hooks/ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ text: 'finish me', from: 'rosa' }),
    });
    expect(res.status).toBe(202);
    const { id } = await res.json();
    await reachedUpstream; // the job is active in the worker

    worker.child.kill('SIGTERM');
    await worker.waitForOutput('worker stopping');
    release();

    expect(await worker.exited).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.headers['idempotency-key']).toBe(id);
    expect(receiver.requests[0]?.json).toMatchObject({ id, to: 'rosa', text: 'answer to finish me' });
    expect(upstream.requests).toHaveLength(1);
    const view = await (await fetch(`${gateway.url}/hooks/ops/jobs/${id}`, { headers: { 'x-hook-token': TOKEN } })).json();
    expect(view).toMatchObject({ id, status: 'completed', reply: 'answer to finish me', attempts: 1 });
  });
});
