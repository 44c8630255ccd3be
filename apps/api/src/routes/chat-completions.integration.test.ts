import { chunkBody, type LocalServer, openSse, startOpenAIUpstream, writeSse } from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

let upstream: LocalServer;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: {
        mock: {
          type: 'openai',
          baseUrl: `${upstream.url}/v1`,
          apiKey: 'sk-upstream-secret-123',
          models: ['gpt-4o-mini', 'gpt-4o'],
        },
        openrouter: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['meta/llama-3'] },
      },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('POST /v1/chat/completions with the local echo model', () => {
  it('answers the openai client with a chat.completion built from the last user message', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('local/echo');
    expect(completion.choices[0]?.message).toEqual({ role: 'assistant', content: 'Echo: hello there' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(60);
  });

  it('streams the same reply to the openai client, role first, finish_reason last, then usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'a longer sentence so that the reply needs several chunks' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const withChoices = chunks.filter((c) => c.choices.length > 0);
    expect(withChoices.length).toBeGreaterThan(2);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'local/echo')).toBe(true);
    expect(withChoices[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(withChoices.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      'Echo: a longer sentence so that the reply needs several chunks',
    );
    expect(withChoices.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('cuts the reply at max_tokens with finish_reason length', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three four five six' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('sends SSE headers that stop proxies from buffering and ends with [DONE]', async () => {
    const res = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const frame of text.split('\n\n').filter(Boolean)) expect(frame).toMatch(/^data: /);
  });
});

describe('POST /v1/chat/completions through an OpenAI-compatible upstream', () => {
  it('forwards every standard parameter, re-targets the model and names <provider>/<model> in the answer', async () => {
    const before = upstream.requests.length;
    const completion = await client.chat.completions.create({
      model: 'mock/gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'parts work too' }] }],
      temperature: 0.2,
      top_p: 0.9,
      n: 1,
      stop: ['END'],
      seed: 7,
      user: 'alice',
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      max_completion_tokens: 50,
      response_format: { type: 'json_object' },
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
    });
    expect(completion.model).toBe('mock/gpt-4o');
    expect(completion.choices[0]?.message.content).toBe('Upstream says: ');
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(completion.system_fingerprint).toBe('fp_test');

    const sent = upstream.requests[before];
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-upstream-secret-123');
    expect(sent?.json).toMatchObject({
      model: 'gpt-4o',
      stream: false,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
      user: 'alice',
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      max_completion_tokens: 50,
      response_format: { type: 'json_object' },
      tool_choice: 'auto',
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
  });

  it('resolves default to the configured default model', async () => {
    const completion = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.model).toBe('mock/gpt-4o-mini');
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('gpt-4o-mini');
  });

  it('splits model ids on the first slash only', async () => {
    const completion = await client.chat.completions.create({
      model: 'openrouter/meta/llama-3',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.model).toBe('openrouter/meta/llama-3');
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('meta/llama-3');
    expect(upstream.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('streams upstream chunks through with one id and the gateway model name', async () => {
    const stream = await client.chat.completions.create({
      model: 'mock/gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream me please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('Upstream says: stream me please');
    expect(chunks.every((c) => c.model === 'mock/gpt-4o-mini')).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect((upstream.requests.at(-1)!.json as { stream_options: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('writes the same SSE bytes whether an upstream event is read by the common-chunk match or by JSON.parse', async () => {
    const events = (model: string) => [
      chunkBody(model, { role: 'assistant', content: '', refusal: null }),
      chunkBody(model, { role: 'assistant', content: 'a "quote", a \\ ' }),
      { ...chunkBody(model, { content: 'a line\n\t😀 é \u2028' }), service_tier: 'default', system_fingerprint: 'fp_1' },
      chunkBody(model, { content: '\u0001' }),
      chunkBody(model, {}, 'stop'),
      { ...chunkBody(model, {}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
    ];
    const streamed = async (spaced: boolean) => {
      upstream.handle((req, res) => {
        openSse(res);
        for (const event of events((req.json as { model: string }).model)) {
          const data = JSON.stringify(event);
          writeSse(res, spaced ? `${data.slice(0, -1)} }` : data); // a space: JSON alike, but no common-chunk match
        }
        writeSse(res, '[DONE]');
        res.end();
      });
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'mock/gpt-4o-mini',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'x' }],
        }),
      });
      const text = await res.text();
      const { id, created } = JSON.parse(text.slice(6, text.indexOf('\n'))) as { id: string; created: number };
      return text.replaceAll(id, '<id>').replaceAll(`"created":${created},`, '"created":0,');
    };
    try {
      const matched = await streamed(false);
      expect(matched).toBe(await streamed(true));
      const frames = matched.split('\n\n').filter(Boolean);
      expect(frames).toHaveLength(7);
      expect(frames[2]).toBe(
        'data: {"id":"<id>","object":"chat.completion.chunk","created":0,"model":"mock/gpt-4o-mini","choices":[{"index":0,"delta":{"content":"a line\\n\\t😀 é \u2028"},"logprobs":null,"finish_reason":null}]}',
      );
    } finally {
      upstream.handle((await import('@switchboard/testing')).defaultOpenAIHandler);
    }
  });

  it('delivers each chunk before the upstream has sent the next one (never buffered)', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.handle(async (req, res) => {
      const model = (req.json as { model: string }).model;
      openSse(res);
      writeSse(res, chunkBody(model, { role: 'assistant', content: 'first' }));
      await released; // the rest waits until the client has seen the first chunk
      writeSse(res, chunkBody(model, { content: ' second' }, 'stop'));
      writeSse(res, '[DONE]');
      res.end();
    });
    try {
      const stream = await client.chat.completions.create({
        model: 'mock/gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      const contents: string[] = [];
      for await (const chunk of stream) {
        contents.push(chunk.choices[0]?.delta.content ?? '');
        if (contents.length === 1) release();
      }
      expect(contents.join('')).toBe('first second');
    } finally {
      release();
      upstream.handle((await import('@switchboard/testing')).defaultOpenAIHandler);
    }
  });

  it('aborts the upstream request when the client hangs up mid-stream', async () => {
    let upstreamClosed = false;
    upstream.handle((req, res, raw) => {
      openSse(res);
      writeSse(res, chunkBody((req.json as { model: string }).model, { role: 'assistant', content: 'partial' }));
      raw.socket.once('close', () => {
        upstreamClosed = true; // the stream never finishes on its own
      });
    });
    try {
      const controller = new AbortController();
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('partial');
      expect(upstreamClosed).toBe(false);
      controller.abort();
      await eventually(() => expect(upstreamClosed, 'the gateway closed its upstream connection').toBe(true), 500);
    } finally {
      upstream.handle((await import('@switchboard/testing')).defaultOpenAIHandler);
    }
  });

  it('sends an error event and closes the stream when the upstream breaks mid-stream', async () => {
    upstream.handle((req, res) => {
      openSse(res);
      res.write(
        `data: ${JSON.stringify(chunkBody((req.json as { model: string }).model, { role: 'assistant', content: 'half' }))}\n\n`,
        () => res.destroy(),
      );
    });
    try {
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(200);
      const frames = (await res.text()).split('\n\n').filter(Boolean);
      expect(frames[0]).toContain('half');
      const last = JSON.parse(frames.at(-1)!.replace(/^data: /, ''));
      expect(last.error).toMatchObject({ type: 'upstream_error' });
      expect(frames.some((f) => f.includes('[DONE]'))).toBe(false);
    } finally {
      upstream.handle((await import('@switchboard/testing')).defaultOpenAIHandler);
    }
  });
});
