import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  type FakeSlack,
  type FakeTelegram,
  freePort,
  type LocalServer,
  MCP_STDIO_SERVER,
  sendJson,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeSlack,
  startFakeTelegram,
  startLocalServer,
  startTestMcpHttpServer,
  TELEGRAM_SECRET_HEADER,
  type TestMcpHttpServer,
  type ToolTurn,
  telegramUpdate,
  toolCallingModel,
  toolMessages,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';
import type { TestWorker } from '../test-support/start-worker.js';

/**
 * Bots that act, end to end: the real API and worker, a model that asks for tools
 * (packages/testing `toolCallingModel`, OpenAI's `tool_calls` wire format), and the test MCP
 * server built with the SDK — as a stdio child of the worker (Telegram, Slack) and over
 * Streamable HTTP behind a bearer token (a generic hook).
 */
const TOKEN = 'tools-hook-token-0123';
const MCP_TOKEN = 'mcp-bearer-secret-0123456';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_0123';
const SLACK_SECRET = 'slack-signing-secret-0123';
const SLACK_TOKEN = 'xoxb-tools-bot-token-0123';

const PLANS: Record<string, ToolTurn[]> = {
  'add 2 and 3': [[{ name: 'local__add', arguments: { a: 2, b: 3 } }]],
  'open a ticket': [[{ name: 'local__create_ticket', arguments: { title: 'printer' } }]],
  'be sneaky': [[{ name: 'local__slow', arguments: { ms: 1 } }]],
  'remote sum': [[{ name: 'remote__add', arguments: { a: 40, b: 2 } }], [{ name: 'remote__add', arguments: { a: 1, b: 1 } }]],
  'never stop': [1, 2, 3].map((n) => [{ name: 'remote__add', arguments: { a: n, b: n } }]),
  'wait forever': [[{ name: 'remote__slow', arguments: { ms: 5_000 } }]],
  'flood me': [[{ name: 'remote__huge', arguments: { chars: 100_000 } }]],
  'file it': [[{ name: 'remote__create_ticket', arguments: { title: 'approved one' } }]],
  'file another': [[{ name: 'remote__create_ticket', arguments: { title: 'denied one' } }]],
  'file late': [[{ name: 'remote__create_ticket', arguments: { title: 'late one' } }]],
  'file across a restart': [[{ name: 'remote__create_ticket', arguments: { title: 'restart one' } }]],
};

const sideEffects = join(mkdtempSync(join(tmpdir(), 'hooks-tools-')), 'tickets.jsonl');
let harness: LiveHarness;
let telegram: FakeTelegram;
let slack: FakeSlack;
let receiver: LocalServer;
let mcp: TestMcpHttpServer;
let worker: TestWorker;

beforeAll(async () => {
  [telegram, slack, receiver, mcp] = await Promise.all([
    startFakeTelegram({ botToken: TG_TOKEN }),
    startFakeSlack({ botToken: SLACK_TOKEN }),
    startLocalServer((_req, res) => sendJson(res, 200, { ok: true })),
    startTestMcpHttpServer({ token: MCP_TOKEN }),
  ]);
  harness = await startLiveHarness({
    model: toolCallingModel((prompt) => PLANS[prompt]),
    config: {
      mcpServers: {
        local: { command: process.execPath, args: [MCP_STDIO_SERVER], env: { MCP_SIDE_EFFECTS: sideEffects } },
        remote: { url: mcp.url, headers: { authorization: `Bearer ${MCP_TOKEN}` }, timeoutMs: 500 },
        // Nothing listens there: the bot answers without it, and /status says so.
        away: { url: `http://127.0.0.1:${await freePort()}/mcp`, headers: { authorization: `Bearer ${MCP_TOKEN}` } },
      },
    },
    hooks: {
      tg: {
        type: 'telegram',
        botToken: TG_TOKEN,
        secretToken: TG_SECRET,
        apiUrl: telegram.url,
        tools: ['local/add', 'local/create_ticket'],
      },
      team: { type: 'slack', signingSecret: SLACK_SECRET, botToken: SLACK_TOKEN, apiUrl: slack.apiUrl, tools: ['local/add'] },
      gen: {
        type: 'generic',
        token: TOKEN,
        stream: false,
        replyUrl: `${receiver.url}/inbox`,
        // `away` is down: its tools are not offered, and the bot answers with the rest.
        tools: ['remote', 'away'],
        maxToolSteps: 2,
      },
      careful: { type: 'generic', token: TOKEN, stream: false, tools: ['remote'], approve: ['remote/create_ticket'] },
      hasty: { type: 'generic', token: TOKEN, stream: false, tools: ['remote'], approve: ['remote'], approvalTimeoutMs: 1_000 },
    },
  });
  worker = harness.startWorker();
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await Promise.all([telegram?.close(), slack?.close(), receiver?.close(), mcp?.close()]);
});

let seq = 0;
async function telegramSays(text: string, chatId: number) {
  seq++;
  const body = telegramUpdate({ text, message_id: seq, chat: { id: chatId, type: 'private' } }, { update_id: 900_000 + seq });
  const res = await harness.post('tg', JSON.stringify(body), { [TELEGRAM_SECRET_HEADER]: TG_SECRET });
  expect(res.status).toBe(200);
}

async function genericSays(text: string): Promise<string> {
  const res = await harness.post('gen', JSON.stringify({ text, from: 'sam' }), { authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(202);
  return (await res.json()).id;
}

const receivedTexts = () => receiver.requests.map((r) => (r.json as { text: string }).text);
const tickets = () => (existsSync(sideEffects) ? readFileSync(sideEffects, 'utf8').trim().split('\n').filter(Boolean) : []);
/** The model's requests for a prompt, in order. */
const modelRequests = (prompt: string) =>
  harness.upstream.requests.filter((r) =>
    ((r.json as { messages: { role: string; content: unknown }[] }).messages ?? []).some(
      (m) => m.role === 'user' && m.content === prompt,
    ),
  );

describe('a Telegram bot with tools', () => {
  it('calls a granted tool, answers with its result, and remembers the call for a follow-up', async () => {
    await telegramSays('add 2 and 3', 501);
    await eventually(() => expect(telegram.chat(501).map((m) => m.text)).toEqual(['tools said: 5']), 400, 25);
    const [first, second] = modelRequests('add 2 and 3');
    // Offered only what the hook grants, as OpenAI function tools.
    const offered = (first!.json as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offered).toEqual(['local__add', 'local__create_ticket']);
    expect(toolMessages(second!)).toEqual([{ tool_call_id: expect.stringMatching(/^call_/), content: '5' }]);
    // Typing while the tool ran.
    expect(telegram.calls.some((c) => c.method === 'sendChatAction' && Number(c.body.chat_id) === 501)).toBe(true);

    const memory = await harness.history('tg', '501');
    expect(memory).toEqual([
      { role: 'user', content: 'add 2 and 3' },
      { role: 'assistant', content: '[tools used]\nadd({"a":2,"b":3}) result: 5\n[reply]\ntools said: 5' },
    ]);
  });

  it('runs a side-effecting tool once per message', async () => {
    const before = tickets().length;
    await telegramSays('open a ticket', 502);
    await eventually(
      () => expect(telegram.chat(502).map((m) => m.text)).toEqual([`tools said: ticket #${before + 1} created: printer`]),
      400,
      25,
    );
    expect(tickets()).toHaveLength(before + 1);
    expect(modelRequests('open a ticket')).toHaveLength(2);
  });

  it('refuses a tool the hook does not grant, to the model, without running it', async () => {
    await telegramSays('be sneaky', 503);
    await eventually(() => expect(telegram.chat(503)).toHaveLength(1), 400, 25);
    expect(telegram.chat(503)[0]!.text).toBe("tools said: Error: the tool 'local__slow' is not available to this bot.");
  });
});

describe('a Slack bot with tools', () => {
  it('shows which tool is in use in the assistant status, then posts the answer in the thread', async () => {
    const ts = '1736960000.000100';
    const raw = JSON.stringify(slackMessageEvent({ text: 'add 2 and 3', ts, channel: 'C0TOOLS' }, { event_id: 'EvTools1' }));
    const res = await harness.post('team', raw, slackSignedHeaders(SLACK_SECRET, raw, Date.now()));
    expect(res.status).toBe(200);
    await eventually(() => expect(slack.thread('C0TOOLS', ts).map((m) => m.text)).toEqual(['tools said: 5']), 400, 25);
    const statuses = slack.calls.filter((c) => c.method === 'assistant.threads.setStatus').map((c) => c.args.status);
    expect(statuses).toEqual(['is thinking…', 'is using add…']);
  });
});

describe('a generic hook with tools over Streamable HTTP', () => {
  it('sends the configured headers, loops through several tool steps, and delivers the answer', async () => {
    const id = await genericSays('remote sum');
    await eventually(() => expect(receivedTexts()).toContain('tools said: 42 | 2'), 400, 25);
    expect(mcp.authorizations.every((value) => value === `Bearer ${MCP_TOKEN}`)).toBe(true);
    // The server that is down offers nothing; the bot answered with the other's tools.
    const offered = (modelRequests('remote sum')[0]!.json as { tools: { function: { name: string } }[] }).tools;
    expect(offered.map((t) => t.function.name).every((name) => name.startsWith('remote__'))).toBe(true);
    // Delivered first, then the job completes: the view catches up a moment later.
    await eventually(async () => {
      const view = await fetch(`${harness.gateway.url}/hooks/gen/jobs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await view.json()).toMatchObject({ status: 'completed', reply: 'tools said: 42 | 2' });
    });
  });

  it('stops after maxToolSteps and asks the model once more without tools', async () => {
    await genericSays('never stop');
    await eventually(() => expect(receivedTexts()).toContain('tools said: 2 | 4'), 400, 25);
    const requests = modelRequests('never stop');
    expect(requests).toHaveLength(3);
    expect((requests[2]!.json as { tool_choice: string }).tool_choice).toBe('none');
  });

  it('tells the model a tool timed out, and caps a huge output saying so', async () => {
    await genericSays('wait forever');
    await genericSays('flood me');
    await eventually(() => expect(receivedTexts()).toContain('tools said: Error: slow timed out after 500 ms'), 400, 25);
    await eventually(
      () => expect(receivedTexts().some((text) => text.includes('[output cut: 16000 of 100000 characters shown]'))).toBe(true),
      400,
      25,
    );
  });
});

describe('the servers’ state', () => {
  it('shows each server on /status: connected with its tools, or down with its error — and no secret anywhere', async () => {
    const servers = await eventually(async () => {
      const status = await (await fetch(`${harness.gateway.url}/status`)).json();
      expect(status.mcp_servers.map((s: { name: string; connected: boolean | null }) => [s.name, s.connected])).toEqual([
        ['local', true],
        ['remote', true],
        ['away', false],
      ]);
      return status.mcp_servers;
    });
    expect(servers[0]).toMatchObject({ transport: 'stdio', tools: ['add', 'slow', 'create_ticket', 'huge', 'crash', 'reveal'] });
    expect(servers[2]).toMatchObject({ transport: 'http', tools: [], last_error: expect.stringMatching(/^connecting: /) });
    expect(JSON.stringify(servers)).not.toContain(MCP_TOKEN);
    expect(worker.logs.join('\n')).toContain('mcp server unavailable');
    expect(worker.logs.join('\n')).not.toContain(MCP_TOKEN);
  });
});

describe('approvals on a generic hook', () => {
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  async function ask(hook: string, text: string): Promise<string> {
    const res = await harness.post(hook, JSON.stringify({ text, from: 'sam' }), auth);
    expect(res.status).toBe(202);
    return (await res.json()).id;
  }
  const view = async (hook: string, id: string) =>
    (await fetch(`${harness.gateway.url}/hooks/${hook}/jobs/${id}`, { headers: auth })).json();
  const decide = (hook: string, id: string, body: unknown) =>
    fetch(`${harness.gateway.url}/hooks/${hook}/jobs/${id}/approval`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(body),
    });

  it('waits for a yes without holding a worker, then runs the call once', async () => {
    const id = await ask('careful', 'file it');
    const waiting = await eventually(
      async () => {
        const job = await view('careful', id);
        expect(job.status).toBe('awaiting_approval');
        return job;
      },
      400,
      25,
    );
    expect(waiting.approval).toMatchObject({ tool: 'create_ticket', arguments: '{"title":"approved one"}' });
    expect(await harness.hub.queue.getJobState(id)).toBe('delayed');
    expect(mcp.tickets).not.toContain('approved one');

    const bad = await decide('careful', id, { approve: 'yes' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ type: 'invalid_request_error', param: 'approve' });
    const yes = await decide('careful', id, { approve: true });
    expect(yes.status).toBe(200);
    expect(await yes.json()).toEqual({ id, tool: 'create_ticket', approve: true });
    await eventually(async () => expect(await view('careful', id)).toMatchObject({ status: 'completed' }), 400, 25);
    expect((await view('careful', id)).reply).toMatch(/^tools said: ticket #\d+ created: approved one$/);
    expect(mcp.tickets.filter((title) => title === 'approved one')).toHaveLength(1);
    expect((await decide('careful', id, { approve: false })).status).toBe(409);
  });

  it('gives the model a denial as the tool’s result, and never runs the call', async () => {
    const id = await ask('careful', 'file another');
    await eventually(async () => expect((await view('careful', id)).status).toBe('awaiting_approval'), 400, 25);
    expect((await decide('careful', id, { approve: false })).status).toBe(200);
    await eventually(async () => expect(await view('careful', id)).toMatchObject({ status: 'completed' }), 400, 25);
    expect((await view('careful', id)).reply).toBe('tools said: Error: the call was denied by the person asked to approve it.');
    expect(mcp.tickets).not.toContain('denied one');
  });

  it('denies a call nobody approved in time, and refuses a late decision', async () => {
    const id = await ask('hasty', 'file late');
    await eventually(async () => expect(await view('hasty', id)).toMatchObject({ status: 'completed' }), 400, 25);
    expect((await view('hasty', id)).reply).toBe('tools said: Error: the call was not approved within 1000 ms.');
    expect(mcp.tickets).not.toContain('late one');
    const late = await decide('hasty', id, { approve: true });
    expect(late.status).toBe(409);
    expect((await late.json()).error.code).toBe('not_awaiting_approval');
  });

  it('keeps waiting across a worker restart: the wait is the job’s, in Redis', async () => {
    const id = await ask('careful', 'file across a restart');
    await eventually(async () => expect((await view('careful', id)).status).toBe('awaiting_approval'), 400, 25);
    await worker.close();
    worker = harness.startWorker();
    expect((await decide('careful', id, { approve: true })).status).toBe(200);
    await eventually(async () => expect(await view('careful', id)).toMatchObject({ status: 'completed' }), 600, 25);
    expect((await view('careful', id)).reply).toMatch(/^tools said: ticket #\d+ created: restart one$/);
    expect(mcp.tickets.filter((title) => title === 'restart one')).toHaveLength(1);
  });
});
