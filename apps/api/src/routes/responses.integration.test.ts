import {
  chunkBody,
  completionBody,
  defaultAnthropicHandler,
  defaultOpenAIHandler,
  type LocalServer,
  openSse,
  sendJson,
  startAnthropicUpstream,
  startOpenAIUpstream,
  writeSse,
} from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

let openai: LocalServer;
let claude: LocalServer;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  openai = await startOpenAIUpstream();
  claude = await startAnthropicUpstream();
  gateway = await startGateway({
    config: {
      defaultModel: 'local/echo',
      providers: {
        mock: { type: 'openai', baseUrl: `${openai.url}/v1`, models: ['gpt-4o'], maxRetries: 0 },
        claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-test-123', models: ['claude-test'] },
      },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterEach(() => {
  openai.handle(defaultOpenAIHandler);
  claude.handle(defaultAnthropicHandler);
});

afterAll(async () => {
  await gateway?.close();
  await openai?.close();
  await claude?.close();
});

const lastBody = (server: LocalServer) => server.requests.at(-1)!.json as Record<string, unknown>;

/** The upstream answers with one call of `weather` for Paris. */
function answerWithToolCall(model: string) {
  return completionBody(model, '', {
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
  });
}

const weatherTool = {
  type: 'function' as const,
  name: 'weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

describe('POST /v1/responses, non-streaming', () => {
  it('answers client.responses.create with a Response the client reads output_text and usage from', async () => {
    const response = await client.responses.create({ model: 'local/echo', input: 'hello there' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.model).toBe('local/echo');
    expect(response.output_text).toBe('Echo: hello there');
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBe((response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0));
  });

  it('sends instructions, message items and the sampling settings on to an OpenAI-type upstream', async () => {
    const response = await client.responses.create({
      model: 'mock/gpt-4o',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: [{ type: 'input_text', text: 'second question' }] },
      ],
      max_output_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      user: 'alice',
    });
    expect(response.output_text).toBe('Upstream says: second question');
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    expect(lastBody(openai)).toMatchObject({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
      max_completion_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      user: 'alice',
    });
  });

  it('returns a tool call as a function_call item, and takes function_call and function_call_output items back', async () => {
    openai.handle((_req, res) => sendJson(res, 200, answerWithToolCall('gpt-4o')));
    const first = await client.responses.create({ model: 'mock/gpt-4o', input: 'Weather in Paris?', tools: [weatherTool] });
    expect(lastBody(openai).tools).toEqual([
      {
        type: 'function',
        function: { name: 'weather', description: 'The weather in a city', parameters: weatherTool.parameters, strict: true },
      },
    ]);
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' });

    openai.handle(defaultOpenAIHandler);
    const second = await client.responses.create({
      model: 'mock/gpt-4o',
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'weather' },
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...first.output.filter((item) => item.type === 'function_call'),
        { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
      ],
    });
    expect(second.status).toBe('completed');
    expect(lastBody(openai)).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'weather' } },
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
      ],
    });
  });

  it('passes text.format json_schema on to an OpenAI-type upstream as response_format', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    await client.responses.create({
      model: 'mock/gpt-4o',
      input: 'Where?',
      text: { format: { type: 'json_schema', name: 'place', schema, strict: true } },
    });
    expect(lastBody(openai).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'place', schema, strict: true },
    });
  });

  it('marks an answer cut at max_output_tokens as incomplete', async () => {
    const response = await client.responses.create({
      model: 'local/echo',
      input: 'one two three four five',
      max_output_tokens: 2,
    });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });
});

describe('POST /v1/responses on an Anthropic upstream', () => {
  it('translates the request to the Messages API and the answer back', async () => {
    const response = await client.responses.create({
      model: 'claude/claude-test',
      instructions: 'Be brief.',
      input: 'hi Claude',
      max_output_tokens: 64,
    });
    expect(response.output_text).toBe('Claude says: hi Claude');
    expect(response.model).toBe('claude/claude-test');
    expect(response.usage).toMatchObject({ input_tokens: 13, output_tokens: 5 });
    expect(lastBody(claude)).toMatchObject({
      system: 'Be brief.',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi Claude' }],
    });
  });

  it('answers text.format json_schema through a forced tool, with the JSON as output_text, streaming too', async () => {
    const schema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] };
    const format = { type: 'json_schema' as const, name: 'echoed', schema };
    const response = await client.responses.create({ model: 'claude/claude-test', input: 'say it', text: { format } });
    expect(JSON.parse(response.output_text)).toEqual({ echo: 'say it' });
    expect(lastBody(claude)).toMatchObject({
      tool_choice: { type: 'tool', name: 'echoed' },
      tools: [{ name: 'echoed', input_schema: schema }],
    });
    expect(response.output.every((item) => item.type === 'message')).toBe(true);

    const stream = client.responses.stream({ model: 'claude/claude-test', input: 'say it again', text: { format } });
    const final = await stream.finalResponse();
    expect(JSON.parse(final.output_text)).toEqual({ echo: 'say it again' });
    expect(final.status).toBe('completed');
  });

  it('streams an Anthropic answer as Responses events', async () => {
    const stream = client.responses.stream({ model: 'claude/claude-test', input: 'stream, Claude' });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Claude says: stream, Claude');
    expect((await stream.finalResponse()).usage).toMatchObject({ input_tokens: 13, output_tokens: 5 });
  });
});

describe('POST /v1/responses with stream: true', () => {
  it('streams the documented events in order, each with its sequence_number, to client.responses.stream', async () => {
    const stream = client.responses.stream({ model: 'mock/gpt-4o', input: 'stream me please' });
    const events = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = [...new Set(events.map((e) => e.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Upstream says: stream me please');
    expect(final.output_text).toBe('Upstream says: stream me please');
    expect(final.id).toMatch(/^resp_/);
    expect(final.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
    expect(lastBody(openai).stream_options).toEqual({ include_usage: true });
  });

  it('streams tool calls as function_call items with argument deltas', async () => {
    openai.handle((_req, res) => {
      openSse(res);
      writeSse(
        res,
        chunkBody('gpt-4o', {
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'weather', arguments: '' } }],
        }),
      );
      writeSse(res, chunkBody('gpt-4o', { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
      writeSse(res, chunkBody('gpt-4o', { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }, 'tool_calls'));
      writeSse(res, '[DONE]');
      res.end();
    });
    const stream = client.responses.stream({ model: 'mock/gpt-4o', input: 'Weather in Oslo?', tools: [weatherTool] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    const final = await stream.finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_9',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      }),
    ]);
  });

  it('sends event: lines, SSE headers, and no [DONE]', async () => {
    const res = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', input: 'hi', stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine!.replace(/^data: /, ''));
      expect(eventLine).toBe(`event: ${data.type}`);
    }
    expect(frames.at(-1)).toContain('response.completed');
    expect(frames.some((f) => f.includes('[DONE]'))).toBe(false);
  });

  it('ends a stream the upstream breaks off with an error event and response.failed', async () => {
    openai.handle((_req, res) => {
      openSse(res);
      res.write(`data: ${JSON.stringify(chunkBody('gpt-4o', { role: 'assistant', content: 'half' }))}\n\n`, () => res.destroy());
    });
    const res = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/gpt-4o', input: 'x', stream: true }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.split('\n')[1]!.replace(/^data: /, '')));
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'upstream_stream_broken' });
    expect(events.at(-1)).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'upstream_stream_broken' } },
    });
    expect(events.at(-1).response.output[0].content[0].text).toBe('half');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));

    const stream = client.responses.stream({ model: 'mock/gpt-4o', input: 'x' });
    // The client reads the error event's message, naming the upstream that broke off.
    await expect(stream.finalResponse()).rejects.toThrow(/^Upstream 'mock' broke off the stream/);
  });

  it('aborts the upstream request when the client hangs up mid-stream', async () => {
    let upstreamClosed = false;
    openai.handle((_req, res, raw) => {
      openSse(res);
      writeSse(res, chunkBody('gpt-4o', { role: 'assistant', content: 'partial' }));
      raw.socket.once('close', () => {
        upstreamClosed = true; // the stream never finishes on its own
      });
    });
    const controller = new AbortController();
    const res = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/gpt-4o', input: 'x', stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('partial')) seen += new TextDecoder().decode((await reader.read()).value);
    expect(upstreamClosed).toBe(false);
    controller.abort();
    await eventually(() => expect(upstreamClosed, 'the gateway closed its upstream connection').toBe(true), 500);
  });
});

describe('POST /v1/responses refusals and validation', () => {
  const post = async (body: unknown) => {
    const res = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, error: (await res.json()).error };
  };

  it('refuses previous_response_id and store: true with a 400 naming them, as the client sees it', async () => {
    await expect(
      client.responses.create({ model: 'local/echo', input: 'x', previous_response_id: 'resp_123' }),
    ).rejects.toMatchObject({
      status: 400,
      param: 'previous_response_id',
      code: 'unsupported_parameter',
    });
    expect(await post({ model: 'local/echo', input: 'x', store: true })).toMatchObject({
      status: 400,
      error: { param: 'store', code: 'unsupported_parameter', type: 'invalid_request_error' },
    });
    expect((await post({ model: 'local/echo', input: 'x', store: false })).status).toBe(200);
  });

  it.each([
    ['an input that is a number', { input: 42 }, 'input'],
    ['an empty input list', { input: [] }, 'input'],
    ['a message item with an unknown role', { input: [{ role: 'wizard', content: 'x' }] }, 'input[0].role'],
    ['a function_call_output without call_id', { input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    ['an item type served nowhere here', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [
      'a content part of an unknown type',
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type',
    ],
    ['a tool that is not a function', { input: 'x', tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [
      'a json_schema format without a schema',
      { input: 'x', text: { format: { type: 'json_schema', name: 'n' } } },
      'text.format.schema',
    ],
    ['a temperature above 2', { input: 'x', temperature: 3 }, 'temperature'],
    ['max_output_tokens below 1', { input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
  ])('answers 400 naming the parameter for %s', async (_name, body, param) => {
    const { status, error } = await post({ model: 'local/echo', ...body });
    expect(status).toBe(400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('answers 404 model_not_found for an unknown model', async () => {
    expect(await post({ model: 'nobody/x', input: 'x' })).toMatchObject({
      status: 404,
      error: { code: 'model_not_found', param: 'model' },
    });
  });
});
