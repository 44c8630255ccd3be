import {
  eventually,
  type FakeSlack,
  type SlackMessage,
  slackButtonClick,
  slackInteractionBody,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeSlack,
  startTestMcpHttpServer,
  type TestMcpHttpServer,
  type ToolTurn,
  toolCallingModel,
  toolMessages,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

/**
 * Approve / Deny in the chat, end to end: the real API and worker, a model asking for a tool that
 * needs approval, the test MCP server (Streamable HTTP) counting the tickets it creates, and the
 * Slack fake, which keeps the buttons the bot posts; the clicks are what Slack sends (a signed
 * `block_actions` form).
 */
const MCP_TOKEN = 'mcp-bearer-secret-approvals-01';
const SLACK_SECRET = 'slack-signing-secret-approvals';
const SLACK_TOKEN = 'xoxb-approvals-bot-token-0123';
const ASKER = 'U0456';
const OTHER = 'U0999';

const ticket = (title: string): ToolTurn[] => [[{ name: 'remote__create_ticket', arguments: { title } }]];

let harness: LiveHarness;
let slack: FakeSlack;
let mcp: TestMcpHttpServer;

beforeAll(async () => {
  [slack, mcp] = await Promise.all([startFakeSlack({ botToken: SLACK_TOKEN }), startTestMcpHttpServer({ token: MCP_TOKEN })]);
  const common = { tools: ['remote'], approve: ['remote/create_ticket'] };
  harness = await startLiveHarness({
    model: toolCallingModel((prompt) => ticket(prompt)),
    config: { mcpServers: { remote: { url: mcp.url, headers: { authorization: `Bearer ${MCP_TOKEN}` } } } },
    hooks: {
      sl: { type: 'slack', signingSecret: SLACK_SECRET, botToken: SLACK_TOKEN, apiUrl: slack.apiUrl, ...common },
      slHasty: {
        type: 'slack',
        signingSecret: SLACK_SECRET,
        botToken: SLACK_TOKEN,
        apiUrl: slack.apiUrl,
        ...common,
        approvalTimeoutMs: 1_000,
      },
    },
  });
  harness.startWorker();
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await Promise.all([slack?.close(), mcp?.close()]);
});

const made = (title: string) => mcp.tickets.filter((t) => t === title).length;
/** The model's requests for a prompt, in order. */
const modelRequests = (prompt: string) =>
  harness.upstream.requests.filter((r) =>
    ((r.json as { messages: { role: string; content: unknown }[] }).messages ?? []).some(
      (m) => m.role === 'user' && m.content === prompt,
    ),
  );
const jobState = (id: string) => harness.hub.queue.getJobState(id);

describe('approvals with Slack buttons', () => {
  let seq = 0;
  /** A user's message in a new thread of its own channel; resolves to the question the bot posts there, and its job id. */
  async function ask(
    hook: string,
    text: string,
  ): Promise<{ question: SlackMessage; jobId: string; channel: string; ts: string }> {
    seq++;
    const channel = `C0APPR${seq}`;
    const ts = `1736960100.00${String(seq).padStart(4, '0')}`;
    const raw = JSON.stringify(slackMessageEvent({ text, ts, channel, user: ASKER }, { event_id: `EvAppr${seq}` }));
    expect((await harness.post(hook, raw, slackSignedHeaders(SLACK_SECRET, raw, Date.now()))).status).toBe(200);
    const question = await eventually(
      () => {
        const found = slack.thread(channel, ts).find((m) => hasButtons(m));
        expect(found).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const [ref] = buttonValue(question).split(' ');
    const jobId = `${hook}-${ref}`;
    // Waiting for a yes holds no worker: the job is delayed in the queue until its deadline.
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    // As posted: the fake edits its own copy.
    return { question: structuredClone(question), jobId, channel, ts };
  }
  const click = (hook: string, question: SlackMessage, actionId: string, userId: string, secret = SLACK_SECRET) => {
    const raw = slackInteractionBody(slackButtonClick(question, actionId, { id: userId, username: userId.toLowerCase() }));
    return harness.post(hook, raw, {
      ...slackSignedHeaders(secret, raw, Date.now()),
      'content-type': 'application/x-www-form-urlencoded',
    });
  };

  it('posts the question with buttons in the thread; Approve runs the tool once, the model gets its result, the question says who approved', async () => {
    const { question, jobId, channel, ts } = await ask('sl', 'slack approve');
    expect(question.text).toContain('create_ticket');
    expect(question.text).toContain('{"title":"slack approve"}');
    expect(made('slack approve')).toBe(0);

    const res = await click('sl', question, 'sb_approve', ASKER);
    expect(res.status).toBe(200);
    await eventually(
      () =>
        expect(slack.thread(channel, ts).map((m) => m.text)).toContain(
          `tools said: ticket #${mcp.tickets.length} created: slack approve`,
        ),
      400,
      25,
    );
    expect(made('slack approve')).toBe(1);
    expect(toolMessages(modelRequests('slack approve')[1]!)[0]!.content).toMatch(/created: slack approve$/);
    const edited = slack.thread(channel, ts).find((m) => m.ts === question.ts)!;
    expect(edited.text).toMatch(/^✅ <@U0456> approved \*create_ticket\*/);
    expect(hasButtons(edited)).toBe(false);
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));

    // The same click again, after the decision: nothing changes; only the clicker hears so.
    const again = await click('sl', question, 'sb_approve', ASKER);
    expect(again.status).toBe(200);
    await eventually(() =>
      expect(slack.ephemerals.at(-1)).toMatchObject({
        channel,
        user: ASKER,
        thread_ts: ts,
        text: expect.stringMatching(/not waiting/),
      }),
    );
    expect(made('slack approve')).toBe(1);
    expect(slack.thread(channel, ts).find((m) => m.ts === question.ts)!.text).toBe(edited.text);
  });

  it('refuses a forged click (401) and another person’s click (told alone, nothing changes); Deny gives the model the denial', async () => {
    const { question, jobId, channel, ts } = await ask('sl', 'slack deny');

    const forged = await click('sl', question, 'sb_approve', ASKER, 'not-the-signing-secret');
    expect(forged.status).toBe(401);
    expect((await forged.json()).error).toMatchObject({ code: 'invalid_signature' });

    const stranger = await click('sl', question, 'sb_approve', OTHER);
    expect(stranger.status).toBe(200);
    await eventually(() =>
      expect(slack.ephemerals.at(-1)).toMatchObject({
        channel,
        user: OTHER,
        text: expect.stringMatching(/Only the person who asked/),
      }),
    );
    expect(await jobState(jobId)).toBe('delayed');
    expect(hasButtons(slack.thread(channel, ts).find((m) => m.ts === question.ts)!)).toBe(true);

    expect((await click('sl', question, 'sb_deny', ASKER)).status).toBe(200);
    await eventually(
      () =>
        expect(slack.thread(channel, ts).map((m) => m.text)).toContain(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('slack deny')).toBe(0);
    const edited = slack.thread(channel, ts).find((m) => m.ts === question.ts)!;
    expect(edited.text).toMatch(/^❌ <@U0456> denied \*create_ticket\*/);
    expect(hasButtons(edited)).toBe(false);
  });

  it('denies a call nobody decided in time, edits the question to say so, and ignores a late click', async () => {
    const { question, jobId, channel, ts } = await ask('slHasty', 'slack late');
    await eventually(
      () =>
        expect(slack.thread(channel, ts).map((m) => m.text)).toContain(
          'tools said: Error: the call was not approved within 1000 ms.',
        ),
      400,
      25,
    );
    const edited = slack.thread(channel, ts).find((m) => m.ts === question.ts)!;
    expect(edited.text).toMatch(/^⌛ Not approved in time/);
    expect(hasButtons(edited)).toBe(false);
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));
    expect((await click('slHasty', question, 'sb_approve', ASKER)).status).toBe(200);
    await eventually(() => expect(slack.ephemerals.at(-1)).toMatchObject({ user: ASKER, channel }));
    expect(made('slack late')).toBe(0);
  });
});

function hasButtons(message: SlackMessage): boolean {
  return (message.blocks ?? []).some((b) => (b as { type: string }).type === 'actions');
}

function buttonValue(message: SlackMessage): string {
  const actions = (message.blocks ?? []).find((b) => (b as { type: string }).type === 'actions') as {
    elements: { value: string }[];
  };
  return actions.elements[0]!.value;
}
