import {
  chunkBody,
  completionBody,
  defaultOpenAIHandler,
  type LocalServer,
  openSse,
  sendJson,
  startOpenAIUpstream,
  writeSse,
} from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

let primary: LocalServer;
let backup: LocalServer;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  primary = await startOpenAIUpstream();
  backup = await startOpenAIUpstream();
  gateway = await startGateway({
    config: {
      defaultModel: 'main/gpt',
      providers: {
        main: { type: 'openai', baseUrl: `${primary.url}/v1`, models: ['gpt'], maxRetries: 2, timeoutMs: 1500 },
        once: { type: 'openai', baseUrl: `${primary.url}/v1`, models: ['gpt'], maxRetries: 0 },
        spare: { type: 'openai', baseUrl: `${backup.url}/v1`, models: ['gpt'], maxRetries: 0 },
      },
      fallbacks: { 'once/gpt': ['spare/gpt'] },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterEach(() => {
  primary.handle(defaultOpenAIHandler);
  backup.handle(defaultOpenAIHandler);
});

afterAll(async () => {
  await gateway?.close();
  await primary?.close();
  await backup?.close();
});

const ask = (model: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });

/** A handler failing `failures` times with `status` (and headers), then answering normally. */
function failingThenOk(failures: number, status: number, headers: Record<string, string> = {}) {
  let seen = 0;
  return (req: Parameters<typeof defaultOpenAIHandler>[0], res: Parameters<typeof defaultOpenAIHandler>[1]) => {
    if (seen++ < failures) return sendJson(res, status, { error: { message: `failure ${seen}` } }, headers);
    return defaultOpenAIHandler(req, res, undefined as never);
  };
}

describe('upstream retries', () => {
  it('retries 5xx up to maxRetries and answers with the attempt that worked', async () => {
    primary.handle(failingThenOk(2, 503));
    const before = primary.requests.length;
    const completion = await client.chat.completions.create({ model: 'main/gpt', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.content).toBe('Upstream says: x');
    expect(primary.requests.length - before).toBe(3);
  });

  it('retries a 429 after the Retry-After the upstream asked for', async () => {
    primary.handle(failingThenOk(1, 429, { 'retry-after': '1' }));
    const res = await ask('main/gpt');
    expect(res.status).toBe(200);
  });

  it('retries a refused connection, then gives up with 502 after maxRetries', async () => {
    primary.handle((_req, res) => {
      res.socket?.destroy();
    });
    const before = primary.requests.length;
    const res = await ask('main/gpt');
    expect(res.status).toBe(502);
    expect(primary.requests.length - before).toBe(3);
  });

  it('does not retry a 400: the same request would fail the same way', async () => {
    primary.handle((_req, res) => sendJson(res, 400, { error: { message: 'bad parameter' } }));
    const before = primary.requests.length;
    expect((await ask('main/gpt')).status).toBe(400);
    expect(primary.requests.length - before).toBe(1);
  });

  it('retries a stream request that fails before its first byte', async () => {
    primary.handle(failingThenOk(1, 500));
    const stream = await client.chat.completions.create({
      model: 'main/gpt',
      messages: [{ role: 'user', content: 'y' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Upstream says: y');
  });
});

describe('fallbacks', () => {
  it('serves from the next model in the chain when a model still fails, naming it in the response', async () => {
    primary.handle((_req, res) => sendJson(res, 500, { error: { message: 'down' } }));
    const completion = await client.chat.completions.create({ model: 'once/gpt', messages: [{ role: 'user', content: 'z' }] });
    expect(completion.model).toBe('spare/gpt');
    expect(completion.choices[0]?.message.content).toBe('Upstream says: z');
  });

  it('falls back for streams too, before the first byte', async () => {
    primary.handle((_req, res) => sendJson(res, 502, { error: { message: 'down' } }));
    const stream = await client.chat.completions.create({
      model: 'once/gpt',
      messages: [{ role: 'user', content: 's' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.model === 'spare/gpt')).toBe(true);
  });

  it('does not fall back on a client error', async () => {
    primary.handle((_req, res) => sendJson(res, 400, { error: { message: 'bad' } }));
    const before = backup.requests.length;
    expect((await ask('once/gpt')).status).toBe(400);
    expect(backup.requests.length).toBe(before);
  });

  it('answers with the last failure when the whole chain fails', async () => {
    primary.handle((_req, res) => sendJson(res, 500, { error: { message: 'down' } }));
    backup.handle((_req, res) => sendJson(res, 503, { error: { message: 'also down' } }));
    const res = await ask('once/gpt');
    expect(res.status).toBe(502);
    expect((await res.json()).error.message).toContain("'spare'");
  });
});

describe('hang-ups, silence and garbage', () => {
  it('aborts the upstream request when a non-streaming client hangs up', async () => {
    let upstreamClosed = false;
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    primary.handle((_req, res, raw) => {
      raw.socket.once('close', () => {
        upstreamClosed = true;
      });
      arrived(); // and never answers
      void res;
    });
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Not main/gpt: its 1.5 s time-out would close the upstream connection by itself, and a
      // hang-up the gateway does not pass on would go unseen. once/gpt waits the default 60 s.
      body: JSON.stringify({ model: 'once/gpt', messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await requestArrived;
    controller.abort();
    expect(await pending).toBe('aborted');
    await eventually(() => expect(upstreamClosed, 'the gateway closed its upstream connection').toBe(true), 500);
  });

  it('ends a stream with an error event when the upstream falls silent for longer than timeoutMs', async () => {
    primary.handle((req, res) => {
      openSse(res);
      writeSse(res, chunkBody((req.json as { model: string }).model, { role: 'assistant', content: 'then silence' }));
    });
    const res = await ask('main/gpt', { stream: true });
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames[0]).toContain('then silence');
    expect(JSON.parse(frames.at(-1)!.replace(/^data: /, '')).error.code).toBe('upstream_timeout');
  });

  it('ends a stream with an error event when the upstream sends an event that is not JSON', async () => {
    primary.handle((req, res) => {
      openSse(res);
      writeSse(res, chunkBody((req.json as { model: string }).model, { role: 'assistant', content: 'ok so far' }));
      writeSse(res, '{this is not json');
      res.end();
    });
    const res = await ask('main/gpt', { stream: true });
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames[0]).toContain('ok so far');
    expect(JSON.parse(frames.at(-1)!.replace(/^data: /, '')).error.code).toBe('upstream_invalid_response');
  });

  it('sends the chunks that came before a bad event in the same network read, then the error event', async () => {
    primary.handle((req, res) => {
      openSse(res);
      const model = (req.json as { model: string }).model;
      // One write: the gateway reads both events at once.
      res.write(
        `data: ${JSON.stringify(chunkBody(model, { role: 'assistant', content: 'ok so far' }))}\n\ndata: {this is not json\n\n`,
      );
      res.end();
    });
    const res = await ask('main/gpt', { stream: true });
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(JSON.parse(frames[0]!.replace(/^data: /, '')).choices[0].delta.content).toBe('ok so far');
    expect(JSON.parse(frames[1]!.replace(/^data: /, '')).error.code).toBe('upstream_invalid_response');
  });

  it('answers 502 when a 200 stream is not an event stream at all', async () => {
    primary.handle((_req, res) => sendJson(res, 200, completionBody('gpt', 'not a stream')));
    const res = await ask('main/gpt', { stream: true });
    expect(res.status).toBe(502);
    expect((await res.json()).error.code).toBe('upstream_invalid_response');
  });
});
