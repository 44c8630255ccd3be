import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '@switchboard/config';
import {
  AppError,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  chatCompletionRequestSchema,
} from '@switchboard/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Gateway } from '../gateway.js';
import { createRegistry, type ModelRegistry } from '../registry.js';

const API_KEY = 'sk-ant-test-0123456789';
const WRONG_KEY = 'sk-ant-wrong-9876543210';
const VERSION = '2023-06-01';

/** What the fake upstream saw, per request. */
interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  socket: Socket;
}

/**
 * A stand-in for api.anthropic.com speaking the Messages API wire format as documented. The
 * upstream model name picks a behaviour: `claude-test` answers, the others fail in one way each.
 */
function fakeAnthropic(seen: Seen[]): Server {
  return createServer(async (req, res) => {
    let raw = '';
    for await (const piece of req) raw += piece;
    const body = JSON.parse(raw) as Record<string, unknown>;
    seen.push({ path: req.url ?? '', headers: req.headers, body, socket: req.socket });
    if (req.url !== '/v1/messages') return sendError(res, 404, 'not_found_error', `Not found: ${req.url}`);
    // Worst case for secret handling: the upstream echoes the key it was given.
    if (req.headers['x-api-key'] !== API_KEY) {
      return sendError(res, 401, 'authentication_error', `invalid x-api-key ${req.headers['x-api-key']}`);
    }
    if (req.headers['anthropic-version'] !== VERSION) return sendError(res, 400, 'invalid_request_error', 'bad version');
    if (body.model === 'claude-overloaded') return sendError(res, 529, 'overloaded_error', 'Overloaded');
    if (body.model === 'claude-broken') return sendError(res, 500, 'api_error', 'Internal server error');
    if (body.model === 'claude-json-only') return sendJson(res, 200, answer(body));
    if (body.stream === true) return streamAnswer(res, body);
    return sendJson(res, 200, answer(body));
  });
}

function answer(body: Record<string, unknown>) {
  const messages = body.messages as { role: string; content: string }[];
  const words = ['Hello!', 'You', 'said:', String(messages.at(-1)?.content)];
  const cut = Number(body.max_tokens) < words.length;
  const text = (cut ? words.slice(0, Number(body.max_tokens)) : words).join(' ');
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: [{ type: 'text', text }],
    stop_reason: cut ? 'max_tokens' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 21,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 4,
      output_tokens: text.split(' ').length,
    },
  };
}

async function streamAnswer(res: ServerResponse, body: Record<string, unknown>) {
  const message = answer(body);
  const text = message.content[0]!.text;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const send = (type: string, data: Record<string, unknown>) =>
    new Promise<void>((resolve) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`, () => resolve()));
  await send('message_start', {
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  await send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  await send('ping', {});
  for (const piece of text.match(/.{1,6}/gs) ?? []) {
    await send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
  }
  if (body.model === 'claude-stream-error') await send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
  if (body.model === 'claude-cut' || body.model === 'claude-stream-error') {
    res.end();
    return;
  }
  await send('content_block_stop', { index: 0 });
  await send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  // The last event arrives in two writes, split mid-line, as TCP may deliver it.
  const last = `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`;
  await new Promise<void>((resolve) => res.write(last.slice(0, 20), () => resolve()));
  await new Promise<void>((resolve) => res.write(last.slice(20), () => resolve()));
  // The end of the body comes a little later, so a client that stops reading at message_stop
  // (and so loses the connection) is caught by the connection-reuse test.
  setTimeout(() => res.end(), 20);
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, type: string, message: string) {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

const request = (body: Record<string, unknown>): ChatCompletionRequest =>
  chatCompletionRequestSchema.parse({ model: 'anthropic/claude-test', messages: [{ role: 'user', content: 'ping' }], ...body });
const ctx = () => ({ signal: new AbortController().signal, requestId: 'test' });

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('AnthropicProvider against a Messages API server', () => {
  const seen: Seen[] = [];
  const server = fakeAnthropic(seen);
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-anthropic-'));
  let registry: ModelRegistry;
  let gateway: Gateway;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const configPath = join(dir, 'switchboard.json');
    const models = ['claude-test', 'claude-overloaded', 'claude-broken', 'claude-cut', 'claude-stream-error', 'claude-json-only'];
    const providers = {
      anthropic: { type: 'anthropic', baseUrl, apiKey: API_KEY, models, defaultMaxTokens: 321 },
      'anthropic-wrong-key': { type: 'anthropic', baseUrl, apiKey: WRONG_KEY, models: ['claude-test'] },
    };
    writeFileSync(configPath, JSON.stringify({ providers }));
    registry = createRegistry(loadSettings({ SWITCHBOARD_CONFIG: configPath }));
    gateway = new Gateway(registry);
  });

  beforeEach(() => {
    seen.length = 0;
  });

  afterAll(async () => {
    await registry?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a chat completion with the upstream text, the provider-prefixed model and mapped usage', async () => {
    const completion = await gateway.complete(request({}), ctx());
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'anthropic/claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! You said: ping' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 25, completion_tokens: 4, total_tokens: 29 },
    });
    expect(seen[0]?.path).toBe('/v1/messages');
    expect(seen[0]?.headers).toMatchObject({ 'x-api-key': API_KEY, 'anthropic-version': VERSION });
  });

  it('sends the system prompt in the upstream system field and the rest as messages', async () => {
    await gateway.complete(
      request({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'ping' },
        ],
      }),
      ctx(),
    );
    expect(seen[0]?.body).toMatchObject({
      model: 'claude-test',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'ping' }],
    });
  });

  it('sends the configured max_tokens when the request names none, and the request limit otherwise', async () => {
    await gateway.complete(request({}), ctx());
    await gateway.complete(request({ max_tokens: 50 }), ctx());
    expect(seen.map((s) => s.body.max_tokens)).toEqual([321, 50]);
  });

  it('reports finish_reason length when the upstream stops at max_tokens', async () => {
    const completion = await gateway.complete(request({ max_tokens: 2 }), ctx());
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Hello! You' }, finish_reason: 'length' });
  });

  it('streams the text as chunks, role in the first delta, a finish reason and usage at the end', async () => {
    const { model, chunks } = await gateway.stream(request({ stream: true, stream_options: { include_usage: true } }), ctx());
    const all = await collect(chunks);
    expect(model).toBe('anthropic/claude-test');
    expect(seen[0]?.body.stream).toBe(true);
    expect(all[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(all.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello! You said: ping');
    expect(all.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    expect(all.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 25, completion_tokens: 4, total_tokens: 29 } });
  });

  it('reuses the upstream connection for the next request once a stream is read to its end', async () => {
    await collect((await gateway.stream(request({ stream: true }), ctx())).chunks);
    // undici hands a finished connection back to its pool on the next turn of the event loop;
    // a request sent in the same turn would open a second connection whatever we did.
    await new Promise((resolve) => setImmediate(resolve));
    await collect((await gateway.stream(request({ stream: true }), ctx())).chunks);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.socket).toBe(seen[0]?.socket);
  });

  it('fails a stream that ends without message_stop', async () => {
    const { chunks } = await gateway.stream(request({ model: 'anthropic/claude-cut', stream: true }), ctx());
    await expect(collect(chunks)).rejects.toMatchObject({ status: 502, code: 'upstream_stream_broken' });
  });

  it('fails a stream with the upstream message when it sends an error event', async () => {
    const { chunks } = await gateway.stream(request({ model: 'anthropic/claude-stream-error', stream: true }), ctx());
    await expect(collect(chunks)).rejects.toMatchObject({ status: 502, message: expect.stringContaining('Overloaded') });
  });

  it('rejects a streaming answer that is not an event stream', async () => {
    await expect(gateway.stream(request({ model: 'anthropic/claude-json-only', stream: true }), ctx())).rejects.toMatchObject({
      status: 502,
      code: 'upstream_invalid_response',
    });
  });

  it('turns an upstream 401 into a 502 that does not reveal the api key', async () => {
    const error = await gateway.complete(request({ model: 'anthropic-wrong-key/claude-test' }), ctx()).catch((err) => err);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_auth_failed' });
    expect(error.message).not.toContain(WRONG_KEY);
    expect(seen[0]?.headers['x-api-key']).toBe(WRONG_KEY);
  });

  it('turns an upstream 529 overload into a 502 carrying the upstream message', async () => {
    await expect(gateway.complete(request({ model: 'anthropic/claude-overloaded' }), ctx())).rejects.toMatchObject({
      status: 502,
      message: "Upstream 'anthropic' failed with status 529: Overloaded",
    });
  });

  it('turns an upstream 500 into a 502, also for a stream', async () => {
    const model = 'anthropic/claude-broken';
    await expect(gateway.complete(request({ model }), ctx())).rejects.toMatchObject({ status: 502 });
    await expect(gateway.stream(request({ model, stream: true }), ctx())).rejects.toMatchObject({ status: 502 });
  });
});
