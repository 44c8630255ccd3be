import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awayFromRateWindowEdge, startGateway, type TestGateway } from '../test-support/start-gateway.js';

const KEY = 'sk-switchboard-key-one';
const LIMITED = 'sk-switchboard-key-two';

const chat = (gateway: TestGateway, headers: Record<string, string> = {}, body: unknown = undefined) =>
  fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body ?? { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('API keys', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ config: { apiKeys: [KEY, { key: LIMITED, requestsPerMinute: 2 }] } });
  });
  afterAll(async () => gateway?.close());

  it('answers /v1 and /status without a key with 401 invalid_api_key', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${gateway.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const res of [
      await chat(gateway),
      await post('/responses', { model: 'local/echo', input: 'hi' }),
      await post('/embeddings', { model: 'local/echo', input: 'hi' }),
      await fetch(`${gateway.baseURL}/models`),
      await fetch(`${gateway.url}/status`),
    ]) {
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
  });

  it('answers a wrong key with 401, and the openai client raises AuthenticationError', async () => {
    expect((await chat(gateway, { authorization: 'Bearer sk-switchboard-key-onf' })).status).toBe(401);
    const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('serves the openai client holding a configured key', async () => {
    const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: KEY, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'ok' }] });
    expect(completion.choices[0]?.message.content).toBe('Echo: ok');
    expect((await fetch(`${gateway.url}/status`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it('never asks for a key on /health and /ready', async () => {
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect([200, 503]).toContain((await fetch(`${gateway.url}/ready`)).status);
    expect((await fetch(`${gateway.url}/ready`)).status).not.toBe(401);
  });

  it('limits a key to its own requestsPerMinute on every /v1 route with 429 rate_limit_exceeded and Retry-After', async () => {
    await awayFromRateWindowEdge();
    const auth = { authorization: `Bearer ${LIMITED}` };
    const post = (path: string, body: unknown) =>
      fetch(`${gateway.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(body),
      });
    expect((await chat(gateway, auth)).status).toBe(200);
    expect((await post('/responses', { model: 'local/echo', input: 'hi' })).status).toBe(200);
    expect((await post('/embeddings', { model: 'local/echo', input: 'hi' })).status).toBe(429);
    const limited = await chat(gateway, auth);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect((await chat(gateway, { authorization: `Bearer ${KEY}` })).status).toBe(200); // other keys are untouched
  });
});

describe('rate limits without keys', () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    const config = { rateLimit: { requestsPerMinute: 3 } };
    await awayFromRateWindowEdge(10_000);
    a = await startGateway({ config });
    b = await startGateway({ config, prefix: a.prefix });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('accepts placeholder keys when no keys are configured', async () => {
    expect((await chat(a, { authorization: 'Bearer not-needed' })).status).toBe(200);
  });

  it('counts per client IP in Redis, so two API processes share one budget', async () => {
    expect((await chat(b)).status).toBe(200);
    expect((await chat(a)).status).toBe(200); // three so far, across both processes
    const res = await chat(b);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('rate limits behind a reverse proxy', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    await awayFromRateWindowEdge(10_000);
    gateway = await startGateway({ config: { trustProxy: true, rateLimit: { requestsPerMinute: 1 } } });
  });
  afterAll(async () => gateway?.close());

  it('gives each X-Forwarded-For client its own budget when trustProxy is on', async () => {
    expect((await chat(gateway, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await chat(gateway, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    expect((await chat(gateway, { 'x-forwarded-for': '198.51.100.9' })).status).toBe(200);
  });
});

describe('hook rate limits', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({
      config: { hooks: { tight: { type: 'generic', token: 'tight-token-123456', rateLimit: { requestsPerMinute: 1 } } } },
    });
  });
  afterAll(async () => gateway?.close());

  it('answers a hook past its own rateLimit with 429', async () => {
    await awayFromRateWindowEdge();
    const send = () =>
      fetch(`${gateway.url}/hooks/tight`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hook-token': 'tight-token-123456' },
        body: JSON.stringify({ text: 'hi', from: 'x' }),
      });
    expect((await send()).status).toBe(202);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe('rate_limit_exceeded');
  });
});

describe('size, type and shape limits', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({
      config: {
        limits: { maxBodyBytes: 4096, maxMessages: 3, maxJsonDepth: 8 },
        hooks: { support: { type: 'generic', token: 'support-token-1234' } },
      },
    });
  });
  afterAll(async () => gateway?.close());

  it('answers a body over maxBodyBytes with 413 in the JSON error shape', async () => {
    const res = await chat(gateway, {}, { model: 'local/echo', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('request_too_large');
  });

  it('answers a hook body over 256 KiB with 413', async () => {
    const res = await fetch(`${gateway.url}/hooks/support`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hook-token': 'support-token-1234' },
      body: JSON.stringify({ text: 'y'.repeat(300 * 1024), from: 'z' }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('request_too_large');
  });

  it('answers content types other than JSON with 415', async () => {
    for (const url of [`${gateway.baseURL}/chat/completions`, `${gateway.url}/hooks/support`]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(res.status).toBe(415);
      expect((await res.json()).error.code).toBe('unsupported_media_type');
    }
  });

  it('answers more than maxMessages messages with 400 naming messages', async () => {
    const messages = Array.from({ length: 4 }, () => ({ role: 'user', content: 'm' }));
    const res = await chat(gateway, {}, { model: 'local/echo', messages });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ param: 'messages', code: 'too_many_messages' });
  });

  it('answers JSON nested deeper than maxJsonDepth with 400', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10; i++) deep = { deeper: deep };
    const res = await chat(gateway, {}, { model: 'local/echo', messages: [{ role: 'user', content: 'x' }], metadata: deep });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('json_too_deep');
  });
});

describe('security headers and CORS', () => {
  let closed: TestGateway;
  let open: TestGateway;
  beforeAll(async () => {
    closed = await startGateway();
    open = await startGateway({ config: { cors: { origins: ['https://app.example.com'] } } });
  });
  afterAll(async () => {
    await closed?.close();
    await open?.close();
  });

  it('sends no X-Powered-By and no CORS headers by default', async () => {
    const res = await fetch(`${closed.baseURL}/models`, { headers: { origin: 'https://evil.example.com' } });
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers preflights and echoes a configured origin, and only that one', async () => {
    const preflight = await fetch(`${open.baseURL}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const other = await fetch(`${open.baseURL}/models`, { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await fetch(`${open.baseURL}/models`, { headers: { origin: 'https://app.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });
});
