import { fakeEmbedding, type LocalServer, startLocalServer, startOpenAIUpstream } from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

let upstream: LocalServer;
let silent: LocalServer;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  silent = await startLocalServer(() => {}); // accepts, never answers
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'], embeddingModels: ['text-embedding-3-small'] },
        slow: { type: 'openai', baseUrl: `${silent.url}/v1`, embeddingModels: ['embed'] },
      },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await silent?.close();
});

const lastBody = () => upstream.requests.at(-1)!.json as Record<string, unknown>;
const close = (actual: number[], expected: number[]) => expect(actual).toEqual(expected.map((value) => expect.closeTo(value, 5)));

describe('POST /v1/embeddings', () => {
  it('answers client.embeddings.create (which asks for base64) with the vectors the upstream made, and usage', async () => {
    const result = await client.embeddings.create({ model: 'mock/text-embedding-3-small', input: 'hello world' });
    expect(result.object).toBe('list');
    expect(result.model).toBe('mock/text-embedding-3-small');
    expect(result.data).toHaveLength(1);
    close(result.data[0]!.embedding, fakeEmbedding('hello world'));
    expect(result.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    // Floats are asked for upstream whatever the client wants: base64 is the gateway's to encode.
    expect(lastBody()).toMatchObject({ model: 'text-embedding-3-small', input: 'hello world', encoding_format: 'float' });
    expect(upstream.requests.at(-1)?.url).toBe('/v1/embeddings');
  });

  it('answers a list of inputs in order, as floats when asked, and passes dimensions on', async () => {
    const result = await client.embeddings.create({
      model: 'mock/text-embedding-3-small',
      input: ['one', 'two', 'three'],
      encoding_format: 'float',
      dimensions: 5,
    });
    expect(result.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(result.data.map((d) => d.embedding)).toEqual([
      fakeEmbedding('one', 5),
      fakeEmbedding('two', 5),
      fakeEmbedding('three', 5),
    ]);
    expect(lastBody()).toMatchObject({ dimensions: 5, input: ['one', 'two', 'three'] });
  });

  it('sends base64 as OpenAI encodes it: float32 little-endian', async () => {
    const res = await fetch(`${gateway.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/text-embedding-3-small', input: 'abc', encoding_format: 'base64' }),
    });
    const body = await res.json();
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    const floats = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    close(floats, fakeEmbedding('abc'));
  });

  it('lists embedding models in /v1/models', async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['mock/gpt-4o', 'mock/text-embedding-3-small', 'slow/embed']));
  });

  it('answers 400 naming the parameter for bad input, and refuses chat models here and embedding models for chat', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${gateway.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, error: (await res.json()).error };
    };
    const model = 'mock/text-embedding-3-small';
    expect(await post('/embeddings', { model, input: '' })).toMatchObject({ status: 400, error: { param: 'input' } });
    expect(await post('/embeddings', { model, input: [] })).toMatchObject({ status: 400, error: { param: 'input' } });
    expect(await post('/embeddings', { model, input: 'x', encoding_format: 'hex' })).toMatchObject({
      status: 400,
      error: { param: 'encoding_format' },
    });
    expect(await post('/embeddings', { model, input: 'x', dimensions: 0 })).toMatchObject({
      status: 400,
      error: { param: 'dimensions' },
    });
    expect(await post('/embeddings', { input: 'x' })).toMatchObject({ status: 400, error: { param: 'model' } });
    expect(await post('/embeddings', { model: 'mock/gpt-4o', input: 'x' })).toMatchObject({
      status: 400,
      error: { param: 'model', code: 'model_not_supported' },
    });
    expect(await post('/chat/completions', { model, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({
      status: 400,
      error: { param: 'model', code: 'model_not_supported' },
    });
    expect(await post('/responses', { model, input: 'x' })).toMatchObject({
      status: 400,
      error: { code: 'model_not_supported' },
    });
  });

  it('aborts the upstream request when the client hangs up', async () => {
    let arrived!: () => void;
    const upstreamHasIt = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let upstreamClosed = false;
    silent.handle((_req, _res, raw) => {
      raw.socket.once('close', () => {
        upstreamClosed = true;
      });
      arrived(); // and never answers
    });
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow/embed', input: 'x' }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await upstreamHasIt;
    controller.abort();
    expect(await pending).toBe('aborted');
    await eventually(() => expect(upstreamClosed, 'the gateway closed its upstream connection').toBe(true), 500);
  });
});
