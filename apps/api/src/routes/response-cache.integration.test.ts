import { createHash } from 'node:crypto';
import { freePort, type LocalServer, sendJson, startLocalServer, startOpenAIUpstream } from '@switchboard/testing';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../services/canonical-json.js';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';

const KEY_A = 'sk-cache-key-aaaaaaaa';
const KEY_B = 'sk-cache-key-bbbbbbbb';
let upstream: LocalServer;
let gateway: TestGateway;
let shared: TestGateway;

const providers = (url: string) => ({
  mock: { type: 'openai', baseUrl: `${url}/v1`, models: ['gpt-4o', 'gpt-4o-mini'], embeddingModels: ['embed'] },
});

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: providers(upstream.url),
      apiKeys: [KEY_A, KEY_B],
      cache: { ttlSeconds: 600 },
    },
  });
  shared = await startGateway({
    config: { providers: providers(upstream.url), apiKeys: [KEY_A, KEY_B], cache: { shareAcrossKeys: true } },
  });
});

afterAll(async () => {
  await gateway?.close();
  await shared?.close();
  await upstream?.close();
});

const clientFor = (via: TestGateway, key = KEY_A) => new OpenAI({ baseURL: via.baseURL, apiKey: key, maxRetries: 0 });
const question = (text: string, temperature = 0) => ({
  model: 'mock/gpt-4o',
  temperature,
  messages: [{ role: 'user' as const, content: text }],
});

async function chat(body: ReturnType<typeof question>, via = gateway, key = KEY_A) {
  const { data, response } = await clientFor(via, key).chat.completions.create(body).withResponse();
  return { completion: data, cache: response.headers.get('x-switchboard-cache') };
}

describe('the response cache', () => {
  it('answers a repeated temperature-0 request from Redis: the upstream is asked once, the answer gets its own id', async () => {
    const before = upstream.requests.length;
    const first = await chat(question('cache me'));
    const again = await chat(question('cache me'));
    expect([first.cache, again.cache]).toEqual(['miss', 'hit']);
    expect(upstream.requests.length - before).toBe(1);
    expect(again.completion.choices).toEqual(first.completion.choices);
    expect(again.completion.usage).toEqual(first.completion.usage);
    expect(again.completion.id).not.toBe(first.completion.id);
  });

  it('replays a cached stream as a stream', async () => {
    const client = clientFor(gateway);
    const before = upstream.requests.length;
    const read = async () => {
      const { data, response } = await client.chat.completions
        .create({ ...question('stream and cache me'), stream: true })
        .withResponse();
      const chunks = [];
      for await (const chunk of data) chunks.push(chunk);
      return { chunks, cache: response.headers.get('x-switchboard-cache') };
    };
    const first = await read();
    const again = await read();
    expect([first.cache, again.cache]).toEqual(['miss', 'hit']);
    expect(upstream.requests.length - before).toBe(1);
    const text = (chunks: typeof first.chunks) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text(again.chunks)).toBe('Upstream says: stream and cache me');
    expect(again.chunks.length).toBe(first.chunks.length);
    expect(new Set(again.chunks.map((c) => c.id)).size).toBe(1);
    expect(again.chunks[0]?.id).not.toBe(first.chunks[0]?.id);
  });

  it('caches the Responses API, streamed and not, and embeddings', async () => {
    const client = clientFor(gateway);
    const before = upstream.requests.length;
    const one = await client.responses.create({ model: 'mock/gpt-4o', input: 'respond once', temperature: 0 });
    const two = await client.responses.create({ model: 'mock/gpt-4o', input: 'respond once', temperature: 0 });
    expect(two.output_text).toBe(one.output_text);
    expect(two.id).not.toBe(one.id);
    const streamed = async () =>
      client.responses.stream({ model: 'mock/gpt-4o', input: 'stream once', temperature: 0 }).finalResponse();
    expect((await streamed()).output_text).toBe('Upstream says: stream once');
    expect((await streamed()).output_text).toBe('Upstream says: stream once');
    const embed = () => client.embeddings.create({ model: 'mock/embed', input: 'embed once' });
    expect((await embed()).data).toEqual((await embed()).data);
    expect(upstream.requests.length - before).toBe(3);
  });

  it('answers from an entry stored under the key earlier releases wrote (the name the model resolves to, not the one sent)', async () => {
    // The key as the routes computed it before the shared v1-call: v1, endpoint, tenant ('*' with
    // shareAcrossKeys), stream, and the parsed request with `model` resolved ('gpt-4o' → 'mock/gpt-4o').
    const request = { model: 'gpt-4o', temperature: 0, messages: [{ role: 'user', content: 'stored before' }] };
    const hash = createHash('sha256')
      .update(canonicalJson({ v: 1, kind: 'chat', tenant: '*', stream: false, request: { ...request, model: 'mock/gpt-4o' } }))
      .digest('hex');
    const stored = {
      id: 'chatcmpl-old',
      object: 'chat.completion',
      created: 1,
      model: 'mock/gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'from the old entry' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 },
    };
    const redis = new Redis(shared.settings.redisUrl);
    try {
      await redis.set(`${shared.prefix}:cache:${hash}`, JSON.stringify({ body: stored }), 'EX', 60);
    } finally {
      redis.disconnect();
    }
    const before = upstream.requests.length;
    const { completion, cache } = await chat({ ...question('stored before'), model: 'gpt-4o' }, shared);
    expect(cache).toBe('hit');
    expect(completion.choices[0]?.message.content).toBe('from the old entry');
    expect(completion.id).not.toBe('chatcmpl-old');
    expect(upstream.requests.length).toBe(before);
  });

  it('leaves requests with another temperature to the upstream (policy temperature-zero)', async () => {
    const before = upstream.requests.length;
    const first = await chat(question('warm', 0.7));
    await chat(question('warm', 0.7));
    expect(first.cache).toBeNull();
    expect(upstream.requests.length - before).toBe(2);
  });

  it('keeps each API key’s answers apart unless shareAcrossKeys is set', async () => {
    expect((await chat(question('whose answer?'), gateway, KEY_A)).cache).toBe('miss');
    expect((await chat(question('whose answer?'), gateway, KEY_A)).cache).toBe('hit');
    expect((await chat(question('whose answer?'), gateway, KEY_B)).cache).toBe('miss');
    expect((await chat(question('ours'), shared, KEY_A)).cache).toBe('miss');
    expect((await chat(question('ours'), shared, KEY_B)).cache).toBe('hit');
  });

  it('keeps an entry for ttlSeconds, under the gateway’s key prefix', async () => {
    await chat(question('how long?'));
    const redis = new Redis(gateway.settings.redisUrl);
    try {
      const [, keys] = await redis.scan('0', 'MATCH', `${gateway.prefix}:cache:*`, 'COUNT', 1000);
      expect(keys.length).toBeGreaterThan(0);
      const ttl = await redis.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
    } finally {
      redis.disconnect();
    }
  });

  it('answers without the cache, and routes on its own view of cooldowns, while Redis is away', async () => {
    const failing = await startLocalServer((_req, res) => sendJson(res, 503, { error: { message: 'down' } }));
    const away = await startGateway({
      config: {
        providers: {
          ...providers(upstream.url),
          down: { type: 'openai', baseUrl: `${failing.url}/v1`, models: ['gpt-4o'], maxRetries: 0 },
        },
        cache: {},
        routes: { pair: ['mock/gpt-4o', 'down/gpt-4o'] },
      },
      env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
    });
    try {
      const client = clientFor(away);
      const { data, response } = await client.chat.completions.create({ ...question('no redis'), model: 'pair' }).withResponse();
      expect(data.choices[0]?.message.content).toBe('Upstream says: no redis');
      expect(response.headers.get('x-switchboard-cache')).toBe('miss');
      for (let i = 0; i < 20; i++)
        expect((await client.chat.completions.create({ ...question(`q${i}`, 0.5), model: 'pair' })).model).toBe('mock/gpt-4o');
      expect(failing.requests.length).toBeLessThanOrEqual(1);
    } finally {
      await away.close();
      await failing.close();
    }
  });
});
