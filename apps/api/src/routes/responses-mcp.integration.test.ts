import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chunkBody,
  eventually,
  freePort,
  type LocalServer,
  MCP_STDIO_SERVER,
  openSse,
  sendJson,
  startOpenAIUpstream,
  startTestMcpHttpServer,
  type TestMcpHttpServer,
  type ToolTurn,
  toolCallingModel,
  toolMessages,
  writeSse,
} from '@switchboard/testing';
import OpenAI from 'openai';
import type { ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';

/**
 * `mcp` tools on /v1/responses, end to end: the official `openai` client, the real API, a model
 * that asks for tools (packages/testing `toolCallingModel`, OpenAI's `tool_calls` wire format) and
 * the test MCP server built with the SDK — over Streamable HTTP behind a bearer token (`remote`)
 * and as a stdio child of the API process (`local`).
 */
const KEY = 'sk-responses-mcp-key-0001';
const OTHER_KEY = 'sk-responses-mcp-key-0002';
const METERED_KEY = 'sk-responses-mcp-key-0003';
const ADMIN_KEY = 'admin-responses-mcp-key-0123';
const MCP_TOKEN = 'mcp-bearer-secret-responses-0123';

const PLANS: Record<string, ToolTurn[]> = {
  'open a ticket': [[{ name: 'remote__create_ticket', arguments: { title: 'printer' } }]],
  'stream a ticket': [[{ name: 'remote__create_ticket', arguments: { title: 'streamed' } }]],
  'add twice': [[{ name: 'local__add', arguments: { a: 2, b: 3 } }], [{ name: 'local__add', arguments: { a: 5, b: 5 } }]],
  'wait forever': [[{ name: 'remote__slow', arguments: { ms: 5_000 } }]],
  'flood me': [[{ name: 'remote__huge', arguments: { chars: 100_000 } }]],
  'sum remotely': [[{ name: 'remote__add', arguments: { a: 1, b: 2 } }]],
  'never stop': Array.from({ length: 12 }, (_, n) => [{ name: 'remote__add', arguments: { a: n, b: 1 } }]),
  'sum a lot': [
    [
      { name: 'remote__add', arguments: { a: 1, b: 1 } },
      { name: 'remote__add', arguments: { a: 2, b: 2 } },
    ],
    [{ name: 'remote__add', arguments: { a: 3, b: 3 } }],
  ],
  'weather and a ticket': [
    [
      { name: 'remote__create_ticket', arguments: { title: 'umbrella' } },
      { name: 'weather', arguments: { city: 'Paris' } },
    ],
  ],
};

const sideEffects = join(mkdtempSync(join(tmpdir(), 'responses-mcp-')), 'tickets.jsonl');
let upstream: LocalServer;
let mcp: TestMcpHttpServer;
let gateway: TestGateway;
let client: OpenAI;

const remote = (extra: Record<string, unknown> = {}) =>
  ({ type: 'mcp', server_label: 'remote', require_approval: 'never', ...extra }) as Tool;

beforeAll(async () => {
  [upstream, mcp] = await Promise.all([
    startOpenAIUpstream(toolCallingModel((prompt) => PLANS[prompt])),
    startTestMcpHttpServer({ token: MCP_TOKEN }),
  ]);
  gateway = await startGateway({
    config: {
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'], maxRetries: 0 } },
      apiKeys: [
        { key: KEY, name: 'tools', tools: ['remote', 'local/add', 'away'] },
        { key: OTHER_KEY, name: 'plain' },
        { key: METERED_KEY, name: 'metered', tools: ['remote'] },
      ],
      adminKeys: [ADMIN_KEY],
      mcpServers: {
        remote: { url: mcp.url, headers: { authorization: `Bearer ${MCP_TOKEN}` }, timeoutMs: 500 },
        local: { command: process.execPath, args: [MCP_STDIO_SERVER], env: { MCP_SIDE_EFFECTS: sideEffects } },
        // Nothing listens there: listed with an error, the model answers without it.
        away: { url: `http://127.0.0.1:${await freePort()}/mcp`, headers: { authorization: `Bearer ${MCP_TOKEN}` } },
      },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: KEY, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), mcp?.close()]);
});

describe('mcp tools on /v1/responses', () => {
  it('runs the tool once on the server and answers with mcp_list_tools, mcp_call and the message', async () => {
    const response = await client.responses.create({ model: 'mock/gpt-4o', input: 'open a ticket', tools: [remote()] });

    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const [list, call] = response.output;
    expect(list).toMatchObject({ type: 'mcp_list_tools', server_label: 'remote', error: null });
    expect(list?.type === 'mcp_list_tools' && list.tools.map((tool) => tool.name)).toContain('create_ticket');
    expect(call).toMatchObject({
      type: 'mcp_call',
      server_label: 'remote',
      name: 'create_ticket',
      arguments: '{"title":"printer"}',
      output: 'ticket #1 created: printer',
      error: null,
    });
    expect(response.output_text).toBe('tools said: ticket #1 created: printer');
    expect(mcp.tickets).toEqual(['printer']);
    // Two model calls of 11 + 7 tokens each (the fake's usage), summed.
    expect(response.usage).toMatchObject({ input_tokens: 22, output_tokens: 14, total_tokens: 36 });
    expect(toolMessages(upstream.requests.at(-1)!).map((m) => m.content)).toEqual(['ticket #1 created: printer']);
  });

  it('streams the events of the list, the call and the message, the tool run once', async () => {
    const before = mcp.tickets.length;
    const stream = await client.responses.create({
      model: 'mock/gpt-4o',
      input: 'stream a ticket',
      tools: [remote({ allowed_tools: ['create_ticket'] })],
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    // The model's text word by word, as it streamed it (the fake streams 'tools said: ticket #n created: streamed').
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas).toEqual(['tools ', 'said: ', 'ticket ', `#${before + 1} `, 'created: ', 'streamed']);
    const types = events
      .map((event) => event.type)
      .filter((type, i, all) => type !== all[i - 1] || type !== 'response.output_text.delta');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const done = events.find((event) => event.type === 'response.completed');
    const output = done?.type === 'response.completed' ? done.response.output : [];
    // allowed_tools: only create_ticket is listed (and offered).
    expect(output[0]).toMatchObject({ type: 'mcp_list_tools', tools: [{ name: 'create_ticket' }] });
    expect(output[1]).toMatchObject({ type: 'mcp_call', status: 'completed', output: `ticket #${before + 1} created: streamed` });
    expect(output[2]).toMatchObject({ type: 'message', status: 'completed', content: [{ text: deltas.join('') }] });
    // Streamed calls are metered too (the fake reports no usage on a stream: the gateway counts it).
    expect(done?.type === 'response.completed' && done.response.usage?.total_tokens).toBeGreaterThan(0);
    expect(mcp.tickets.slice(before)).toEqual(['streamed']);
    // Each model call was streamed from the upstream.
    expect(upstream.requests.slice(-2).map((request) => (request.json as { stream?: boolean }).stream)).toEqual([true, true]);
    const offered = (upstream.requests.at(-1)!.json as { tools: { function: { name: string } }[] }).tools;
    expect(offered.map((tool) => tool.function.name)).toEqual(['remote__create_ticket']);
  });

  it('loops through two steps on a stdio server connected on first use', async () => {
    const response = await client.responses.create({
      model: 'mock/gpt-4o',
      input: 'add twice',
      tools: [{ type: 'mcp', server_label: 'local', require_approval: 'never' }],
    });
    const calls = response.output.filter((item) => item.type === 'mcp_call');
    expect(calls.map((call) => call.type === 'mcp_call' && call.output)).toEqual(['5', '10']);
    expect(response.output_text).toBe('tools said: 5 | 10');
    // The key is granted local/add only: the stdio server's other tools are not listed.
    const list = response.output[0];
    expect(list?.type === 'mcp_list_tools' && list.tools.map((tool) => tool.name)).toEqual(['add']);
  });

  it('gives the model a tool that times out as an error, and shows the call failed', async () => {
    const response = await client.responses.create({ model: 'mock/gpt-4o', input: 'wait forever', tools: [remote()] });
    const call = response.output.find((item) => item.type === 'mcp_call');
    expect(call).toMatchObject({ status: 'failed', output: null, error: expect.stringContaining('timed out after 500 ms') });
    expect(response.output_text).toContain('timed out');
  });

  it('stops after 8 steps that asked for tools, the model then asked once more without tools', async () => {
    const response = await client.responses.create({ model: 'mock/gpt-4o', input: 'never stop', tools: [remote()] });
    const outputs = response.output.flatMap((item) => (item.type === 'mcp_call' ? [item.output] : []));
    expect(outputs).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(response.output_text).toBe('tools said: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8');
    expect((upstream.requests.at(-1)!.json as { tool_choice?: unknown }).tool_choice).toBe('none');
    expect(response.usage?.total_tokens).toBe(9 * 18);
  });

  it('runs no more MCP calls than max_tool_calls: a call past it is not run, and the model is asked on without tools', async () => {
    // openai-node 6.49 types max_tool_calls on the Responses client events only: the body is sent as the API reference has it.
    const limited = (max_tool_calls: number) => {
      const body = { model: 'mock/gpt-4o', input: 'sum a lot', tools: [remote()], max_tool_calls };
      return client.responses.create(body);
    };
    const response = await limited(1);
    const calls = response.output.filter((item) => item.type === 'mcp_call');
    expect(calls).toMatchObject([{ name: 'add', arguments: '{"a":1,"b":1}', output: '2' }]);
    expect(response.output_text).toBe(
      'tools said: 2 | Error: not run: this response may make at most 1 MCP tool calls (max_tool_calls).',
    );
    expect(upstream.requests.at(-1)!.json).toMatchObject({ tool_choice: 'none' });

    const two = await limited(2);
    expect(two.output.flatMap((item) => (item.type === 'mcp_call' ? [item.output] : []))).toEqual(['2', '4']);
    expect(two.output_text).toBe('tools said: 2 | 4');

    const none = await limited(0);
    expect(none.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'message']);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ tool_choice: 'none' });
  });

  it('records the request once in the usage, with the tokens of both model calls', async () => {
    const metered = new OpenAI({ baseURL: gateway.baseURL, apiKey: METERED_KEY, maxRetries: 0 });
    await metered.responses.create({ model: 'mock/gpt-4o', input: 'sum remotely', tools: [remote()] });
    const row = await eventually(async () => {
      const res = await fetch(`${gateway.url}/admin/usage?group_by=key`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const body = (await res.json()) as { data: { key: string; requests: number }[] };
      const mine = body.data.find((r) => r.key === 'metered');
      if (!mine) throw new Error('not recorded yet');
      return mine;
    });
    expect(row).toMatchObject({ requests: 1, prompt_tokens: 22, completion_tokens: 14 });
  });

  it('caps a huge output and says so', async () => {
    const response = await client.responses.create({ model: 'mock/gpt-4o', input: 'flood me', tools: [remote()] });
    const call = response.output.find((item) => item.type === 'mcp_call');
    const output = call?.type === 'mcp_call' ? (call.output ?? '') : '';
    expect(output).toMatch(/\[output cut: 16000 of 100000 characters shown\]$/);
    expect(output.length).toBeLessThan(16_100);
  });

  it('lists a server that is down with an error, and answers without it', async () => {
    const response = await client.responses.create({
      model: 'mock/gpt-4o',
      input: 'hello',
      tools: [remote(), { type: 'mcp', server_label: 'away', require_approval: 'never' }],
    });
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_list_tools', 'message']);
    expect(response.output[1]).toMatchObject({
      server_label: 'away',
      tools: [],
      error: "the MCP server 'away' is not connected",
    });
    expect(response.output_text).toBe('reply to: hello');
  });

  it('never writes the MCP server’s bearer token to the logs', () => {
    expect(gateway.rawLogs.some((line) => line.includes(MCP_TOKEN))).toBe(false);
    expect(gateway.rawLogs.some((line) => line.includes('mcp server unavailable'))).toBe(true);
  });

  it('runs the MCP call and hands the client its own function call, next to each other', async () => {
    const before = mcp.tickets.length;
    const response = await client.responses.create({
      model: 'mock/gpt-4o',
      input: 'weather and a ticket',
      tools: [remote(), { type: 'function', name: 'weather', parameters: { type: 'object' }, strict: false }],
    });
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'function_call']);
    expect(response.output[2]).toMatchObject({ name: 'weather', arguments: '{"city":"Paris"}' });
    expect(mcp.tickets.slice(before)).toEqual(['umbrella']);

    // The client sends the answer back with its function's output (stateless, as with store: false).
    const [, ticket, weather] = response.output;
    const next = await client.responses.create({
      model: 'mock/gpt-4o',
      input: [
        { role: 'user', content: 'weather and a ticket' },
        ...response.output,
        { type: 'function_call_output', call_id: weather?.type === 'function_call' ? weather.call_id : '', output: '18°C' },
      ] as OpenAI.Responses.ResponseInput,
      tools: [remote(), { type: 'function', name: 'weather', parameters: { type: 'object' }, strict: false }],
    });
    expect(next.output_text).toBe(`tools said: ${ticket?.type === 'mcp_call' ? ticket.output : ''} | 18°C`);
    expect(mcp.tickets.slice(before)).toEqual(['umbrella']);
  });
});

describe('mcp tools and a model that fails mid-loop', () => {
  it('ends the stream with error and response.failed, the call that ran shown once', async () => {
    const before = mcp.tickets.length;
    const model = toolCallingModel((prompt) => PLANS[prompt]);
    let calls = 0;
    // The first model call asks for the tool; the second (with its result) fails.
    upstream.handle((req, res, raw) =>
      ++calls === 1 ? model(req, res, raw) : sendJson(res, 400, { error: { message: 'bad', type: 'invalid_request_error' } }),
    );
    try {
      const res = await fetch(`${gateway.baseURL}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/gpt-4o', input: 'open a ticket', tools: [remote()], stream: true }),
      });
      const events = (await res.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: { status: string; output: { type: string }[] } });
      expect(res.status).toBe(200);
      expect(events.map((event) => event.type).slice(-3)).toEqual(['response.output_item.done', 'error', 'response.failed']);
      const failed = events.at(-1)?.response;
      expect(failed?.status).toBe('failed');
      expect(failed?.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call']);
      expect(mcp.tickets.length).toBe(before + 1);
      // The upstream's fault, not ours: nothing logged at error level.
      expect(gateway.logs.filter((line) => line.level === 'error')).toEqual([]);
    } finally {
      upstream.handle(model);
    }
  });
});

describe('mcp tools and a model that refuses after some text', () => {
  it('streams the refusal as the message’s second part, after its text, and keeps both in the Response', async () => {
    const model = toolCallingModel((prompt) => PLANS[prompt]);
    upstream.handle((_req, res) => {
      openSse(res);
      for (const delta of [
        { role: 'assistant', content: 'Let me see. ' },
        { refusal: 'I cannot ' },
        { refusal: 'help with that.' },
      ])
        writeSse(res, chunkBody('gpt-4o', delta));
      writeSse(res, chunkBody('gpt-4o', {}, 'stop'));
      writeSse(res, '[DONE]');
      res.end();
    });
    try {
      const stream = await client.responses.create({ model: 'mock/gpt-4o', input: 'hello', tools: [remote()], stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const refusals = events.flatMap((event) => (event.type === 'response.refusal.delta' ? [event] : []));
      expect(refusals.map((event) => [event.content_index, event.delta])).toEqual([
        [1, 'I cannot '],
        [1, 'help with that.'],
      ]);
      expect(events.find((event) => event.type === 'response.refusal.done')).toMatchObject({
        refusal: 'I cannot help with that.',
      });
      const done = events.find((event) => event.type === 'response.completed');
      const output = done?.type === 'response.completed' ? done.response.output : [];
      expect(output.at(-1)).toMatchObject({
        type: 'message',
        content: [
          { type: 'output_text', text: 'Let me see. ' },
          { type: 'refusal', refusal: 'I cannot help with that.' },
        ],
      });
    } finally {
      upstream.handle(model);
    }
  });
});

describe('mcp tools and a client that hangs up', () => {
  it('stops the tool call when the client leaves mid-call, logging it as the client’s doing', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gateway.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/gpt-4o', input: 'wait forever', tools: [remote()], stream: true }),
      signal: controller.signal,
    });
    const requestId = res.headers.get('x-request-id');
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('response.mcp_call.in_progress')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const lines = await eventually(() => {
      const mine = gateway.logs.filter((line) => line.request_id === requestId);
      if (!mine.some((line) => line.message === 'client closed request')) throw new Error('not yet');
      return mine;
    });
    expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
  });
});

describe('mcp tools refused', () => {
  async function refusal(tool: object, apiKey = KEY) {
    const other = new OpenAI({ baseURL: gateway.baseURL, apiKey, maxRetries: 0 });
    const err = await other.responses.create({ model: 'mock/gpt-4o', input: 'hi', tools: [tool as Tool] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    return { param: err.param as string, message: err.message as string, code: err.code as string };
  }

  it('answers 400 for a server not granted to the key', async () => {
    expect(await refusal(remote(), OTHER_KEY)).toMatchObject({ param: 'tools[0].server_label', code: 'mcp_server_not_granted' });
  });

  it('answers 400 for a server_label no configured server has', async () => {
    expect(await refusal(remote({ server_label: 'nowhere' }))).toMatchObject({
      param: 'tools[0].server_label',
      code: 'mcp_server_not_found',
    });
  });

  it('answers 400 when approvals are asked for, or left at OpenAI’s default', async () => {
    const always = await refusal(remote({ require_approval: 'always' }));
    expect(always.param).toBe('tools[0].require_approval');
    expect(always.message).toContain('not supported on /v1 yet');
    expect((await refusal({ type: 'mcp', server_label: 'remote' })).param).toBe('tools[0].require_approval');
  });

  it('answers 400 for a server named by URL, or headers and a token sent for one', async () => {
    const { param } = await refusal({ ...remote(), server_url: 'https://mcp.example.com/mcp' });
    expect(param).toBe('tools[0].server_url');
    expect((await refusal(remote({ headers: { authorization: 'Bearer x' } }))).param).toBe('tools[0].headers');
    expect((await refusal(remote({ authorization: 'token' }))).param).toBe('tools[0].authorization');
  });

  it('runs nothing for a refused request', async () => {
    const before = mcp.tickets.length;
    await refusal(remote(), OTHER_KEY);
    expect(mcp.tickets.length).toBe(before);
  });
});
