import { connect } from 'node:net';
import { freePort, type LocalServer, sendJson, startLocalServer, startOpenAIUpstream } from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';

const SECRET = 'sk-do-not-leak-4242';
let upstream: LocalServer;
let silent: LocalServer;
let gateway: TestGateway;
let closedPort: number;

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  silent = await startLocalServer(() => {}); // accepts, never answers
  closedPort = await freePort();
  gateway = await startGateway({
    config: {
      defaultModel: 'local/echo',
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: SECRET, models: ['gpt-4o-mini'] },
        slow: { type: 'openai', baseUrl: `${silent.url}/v1`, models: ['m'], timeoutMs: 300 },
        gone: { type: 'openai', baseUrl: `http://127.0.0.1:${closedPort}/v1`, models: ['m'] },
      },
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await silent?.close();
});

async function post(body: unknown, init: RequestInit = {}) {
  const res = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const user = [{ role: 'user', content: 'hi' }];

function expectErrorShape(json: { error: Record<string, unknown> }) {
  expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof json.error.message).toBe('string');
}

describe('request validation', () => {
  it.each([
    ['a string temperature', { temperature: 'hot' }, 'temperature'],
    ['a temperature above 2', { temperature: 2.5 }, 'temperature'],
    ['a negative temperature', { temperature: -0.1 }, 'temperature'],
    ['max_tokens below 1', { max_tokens: 0 }, 'max_tokens'],
    ['a fractional max_tokens', { max_tokens: 1.5 }, 'max_tokens'],
    ['a non-boolean stream', { stream: 'yes' }, 'stream'],
    ['top_p above 1', { top_p: 3 }, 'top_p'],
    ['a numeric model', { model: 42 }, 'model'],
    ['more than four stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
  ])('answers 400 naming the parameter for %s', async (_name, patch, param) => {
    const { status, json } = await post({ model: 'local/echo', messages: user, ...patch });
    expect(status).toBe(400);
    expectErrorShape(json);
    expect(json.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('answers 400 naming messages[0].role for an unknown role', async () => {
    const { status, json } = await post({ model: 'local/echo', messages: [{ role: 'wizard', content: 'x' }] });
    expect(status).toBe(400);
    expect(json.error.param).toBe('messages[0].role');
  });

  it('answers 400 for an empty messages array and for missing messages', async () => {
    for (const body of [{ model: 'local/echo', messages: [] }, { model: 'local/echo' }]) {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json.error.param).toBe('messages');
    }
  });

  it('answers 400 for a user message without content', async () => {
    const { status, json } = await post({ model: 'local/echo', messages: [{ role: 'user' }] });
    expect(status).toBe(400);
    expect(json.error.param).toBe('messages[0].content');
  });

  it('answers 400 invalid_json for a broken body and for a body that is not an object', async () => {
    const broken = await post('{"model": "local/echo", "messages": [');
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe('invalid_json');
    const array = await post('[1,2]');
    expect(array.status).toBe(400);
    expectErrorShape(array.json);
  });

  it('throws a BadRequestError in the openai client for a bad parameter', async () => {
    const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
    const failure = client.chat.completions.create({ model: 'local/echo', messages: [], temperature: 1 });
    await expect(failure).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe('unknown models and routes', () => {
  it('answers 404 model_not_found for a model its provider does not list', async () => {
    const { status, json } = await post({ model: 'mock/gpt-5-ultra', messages: user });
    expect(status).toBe(404);
    expect(json.error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it('answers 404 model_not_found for an unknown provider', async () => {
    const { status, json } = await post({ model: 'nobody/gpt-4o', messages: user });
    expect(status).toBe(404);
    expect(json.error.code).toBe('model_not_found');
  });

  it('answers an unknown path with a JSON 404', async () => {
    const res = await fetch(`${gateway.url}/v1/engines`);
    expect(res.status).toBe(404);
    expectErrorShape(await res.json());
  });

  it('answers a wrong method with a JSON 405 and an Allow header', async () => {
    const res = await fetch(`${gateway.baseURL}/chat/completions`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
    const json = await res.json();
    expectErrorShape(json);
    expect(json.error.code).toBe('method_not_allowed');
  });
});

describe('requests the HTTP parser refuses', () => {
  it('answers them in the JSON error shape too', async () => {
    const { port } = new URL(gateway.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write('GET /v1/mo\x01dels HTTP/1.1\r\nHost: x\r\n\r\n');
    let answer = '';
    for await (const chunk of socket) answer += String(chunk);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expectErrorShape(json);
  });
});

describe('upstream failures', () => {
  it('answers 502 when the upstream fails with 500', async () => {
    upstream.handle((_req, res) => sendJson(res, 500, { error: { message: 'boom', type: 'server_error' } }));
    const { status, json } = await post({ model: 'mock/gpt-4o-mini', messages: user });
    expect(status).toBe(502);
    expect(json.error.type).toBe('upstream_error');
  });

  it('answers 502 without the upstream key when the upstream refuses it', async () => {
    upstream.handle((_req, res) =>
      sendJson(res, 401, { error: { message: `Incorrect API key provided: ${SECRET}`, type: 'invalid_request_error' } }),
    );
    const { status, text, json } = await post({ model: 'mock/gpt-4o-mini', messages: user });
    expect(status).toBe(502);
    expect(json.error.code).toBe('upstream_auth_failed');
    expect(text).not.toContain(SECRET);
    expect(gateway.rawLogs.join('\n')).not.toContain(SECRET);
  });

  it('passes an upstream 400 on as a 400 with its message, scrubbed of the key', async () => {
    upstream.handle((_req, res) =>
      sendJson(res, 400, { error: { message: `context too long for key ${SECRET}`, type: 'invalid_request_error' } }),
    );
    const { status, text, json } = await post({ model: 'mock/gpt-4o-mini', messages: user });
    expect(status).toBe(400);
    expect(json.error.message).toContain('context too long');
    expect(text).not.toContain(SECRET);
  });

  it('answers 429 with Retry-After when the upstream rate-limits', async () => {
    // The gateway's own retries wait what Retry-After asks (twice): 4 s, where 7 took 14.
    upstream.handle((_req, res) => sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '2' }));
    const { status, headers, json } = await post({ model: 'mock/gpt-4o-mini', messages: user });
    expect(status).toBe(429);
    expect(headers.get('retry-after')).toBe('2');
    expect(json.error.type).toBe('rate_limit_error');
  });

  it('answers 502 when the upstream returns something that is not a chat completion', async () => {
    upstream.handle((_req, res) => sendJson(res, 200, { hello: 'world' }));
    expect((await post({ model: 'mock/gpt-4o-mini', messages: user })).status).toBe(502);
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
    });
    const { status, json } = await post({ model: 'mock/gpt-4o-mini', messages: user });
    expect(status).toBe(502);
    expect(json.error.code).toBe('upstream_invalid_response');
  });

  it('answers 502 for a stream request when the upstream fails before the first byte', async () => {
    upstream.handle((_req, res) => sendJson(res, 503, { error: { message: 'overloaded' } }));
    const { status, json } = await post({ model: 'mock/gpt-4o-mini', messages: user, stream: true });
    expect(status).toBe(502);
    expectErrorShape(json);
  });

  it('answers 502 when the upstream cannot be reached', async () => {
    const { status, json } = await post({ model: 'gone/m', messages: user });
    expect(status).toBe(502);
    expect(json.error.code).toBe('upstream_unreachable');
  });

  it('answers 504 when the upstream does not answer within timeoutMs', async () => {
    const { status, json } = await post({ model: 'slow/m', messages: user });
    expect(status).toBe(504);
    expect(json.error.code).toBe('upstream_timeout');
  });

  it('never shows a stack trace in an error body', async () => {
    upstream.handle((_req, res) => sendJson(res, 500, { error: { message: 'at Object.<anonymous> (/srv/x.js:1:1)' } }));
    const { text } = await post({ model: 'gone/m', messages: user });
    expect(text).not.toMatch(/\n\s+at /);
  });
});
