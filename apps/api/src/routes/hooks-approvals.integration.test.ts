import {
  type DiscordPost,
  discordButtonPress,
  discordCommand,
  discordKeys,
  discordSignedHeaders,
  eventually,
  type FakeBotFramework,
  type FakeDiscord,
  type FakeMattermost,
  type FakeSlack,
  type FakeTelegram,
  type FakeWhatsApp,
  formBody,
  mattermostSlashCommand,
  type SlackMessage,
  slackButtonClick,
  slackInteractionBody,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeBotFramework,
  startFakeDiscord,
  startFakeMattermost,
  startFakeSlack,
  startFakeTelegram,
  startFakeWhatsApp,
  startTestMcpHttpServer,
  TEAMS_APP_ID,
  TELEGRAM_SECRET_HEADER,
  type TelegramMessage,
  type TestMcpHttpServer,
  type ToolTurn,
  teamsCardSubmit,
  teamsMessageActivity,
  telegramUpdate,
  toolCallingModel,
  toolMessages,
  WHATSAPP_PHONE_NUMBER_ID,
  whatsappButtonReplyWebhook,
  whatsappSignature,
  whatsappTextWebhook,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

/**
 * Approve / Deny in the chat, end to end: the real API and worker, a model asking for a tool that
 * needs approval, the test MCP server (Streamable HTTP) counting the tickets it creates, and the
 * Slack and Telegram fakes, which keep the buttons the bot posts and make the clicks the platforms
 * send (Slack's signed `block_actions` form, Telegram's `callback_query` update).
 */
const MCP_TOKEN = 'mcp-bearer-secret-approvals-01';
const SLACK_SECRET = 'slack-signing-secret-approvals';
const SLACK_TOKEN = 'xoxb-approvals-bot-token-0123';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_approvals';
const ASKER = 'U0456';
const OTHER = 'U0999';
const TG_ASKER = { id: 4242, is_bot: false, first_name: 'Ada' };
const TG_OTHER = { id: 5151, is_bot: false, first_name: 'Mallory' };
const DISCORD_APP = '1100000000000000001';
const DISCORD_KEYS = discordKeys();
const DC_ASKER = { id: '800000000000000003', username: 'ada', global_name: 'Ada' };
const DC_OTHER = { id: '800000000000000099', username: 'mallory', global_name: 'Mallory' };

const ticket = (title: string): ToolTurn[] => [[{ name: 'remote__create_ticket', arguments: { title } }]];

let harness: LiveHarness;
let slack: FakeSlack;
let telegram: FakeTelegram;
let mcp: TestMcpHttpServer;
let discord: FakeDiscord;
let teams: FakeBotFramework;
let whatsapp: FakeWhatsApp;
let mattermost: FakeMattermost;
const WA_SECRET = 'whatsapp-app-secret-approvals';
const WA_TOKEN = 'whatsapp-access-token-approvals';
const WA_ASKER = '16505551234';
const WA_ASKER2 = '16505554321';
const WA_OTHER = '16505559999';
const MM_TOKEN = 'mm-command-token-approvals';
const MM_BOT = 'mm-bot-token-approvals-0123';
const MM_ACTION_URL = 'https://switchboard.example/hooks/mm';
const MM_ASKER = { id: 'h5iz5vlzj3ggzd4bdbrm7xnfho', username: 'ada' };
const MM_OTHER = { id: 'm9iz5vlzj3ggzd4bdbrm7xnfzz', username: 'mallory' };
const TEAMS_PASSWORD = 'teams-app-password-approvals';
const TEAMS_ASKER = { id: '29:1ada-asker', name: 'Ada Lovelace' };
const TEAMS_OTHER = { id: '29:1mallory-other', name: 'Mallory' };

beforeAll(async () => {
  [slack, telegram, mcp, discord, teams, whatsapp, mattermost] = await Promise.all([
    startFakeSlack({ botToken: SLACK_TOKEN }),
    startFakeTelegram({ botToken: TG_TOKEN }),
    startTestMcpHttpServer({ token: MCP_TOKEN }),
    startFakeDiscord({ applicationId: DISCORD_APP }),
    startFakeBotFramework({ appId: TEAMS_APP_ID, appPassword: TEAMS_PASSWORD }),
    startFakeWhatsApp({ accessToken: WA_TOKEN, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID }),
    startFakeMattermost({ botToken: MM_BOT }),
  ]);
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
      dc: {
        type: 'discord',
        publicKey: DISCORD_KEYS.publicKeyHex,
        applicationId: DISCORD_APP,
        apiUrl: discord.apiUrl,
        stream: false,
        ...common,
      },
      ms: {
        type: 'teams',
        appId: TEAMS_APP_ID,
        appPassword: TEAMS_PASSWORD,
        openIdMetadataUrl: `${teams.url}${teams.metadataPath}`,
        tokenUrl: `${teams.url}${teams.tokenPath}`,
        ...common,
      },
      tg: { type: 'telegram', botToken: TG_TOKEN, secretToken: TG_SECRET, apiUrl: telegram.url, ...common },
      wa: {
        type: 'whatsapp',
        appSecret: WA_SECRET,
        verifyToken: 'whatsapp-verify-approvals',
        accessToken: WA_TOKEN,
        apiUrl: whatsapp.url,
        ...common,
      },
      mm: {
        type: 'mattermost',
        token: MM_TOKEN,
        serverUrl: mattermost.url,
        botToken: MM_BOT,
        actionUrl: MM_ACTION_URL,
        ...common,
      },
      tgBoss: {
        type: 'telegram',
        botToken: TG_TOKEN,
        secretToken: TG_SECRET,
        apiUrl: telegram.url,
        ...common,
        approvers: [String(TG_OTHER.id)],
      },
    },
  });
  harness.startWorker();
}, 30_000);

afterAll(async () => {
  await harness?.close();
  await Promise.all([
    slack?.close(),
    telegram?.close(),
    mcp?.close(),
    discord?.close(),
    teams?.close(),
    whatsapp?.close(),
    mattermost?.close(),
  ]);
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

describe('approvals with a Telegram inline keyboard', () => {
  let seq = 0;
  async function ask(hook: string, text: string, chatId: number): Promise<{ question: TelegramMessage; jobId: string }> {
    seq++;
    const body = telegramUpdate(
      { text, message_id: seq, from: TG_ASKER, chat: { id: chatId, type: 'private', first_name: 'Ada' } },
      { update_id: 910_000 + seq },
    );
    expect((await harness.post(hook, JSON.stringify(body), { [TELEGRAM_SECRET_HEADER]: TG_SECRET })).status).toBe(200);
    const question = await eventually(
      () => {
        const found = telegram.chat(chatId).find((m) => m.reply_markup?.inline_keyboard.length);
        expect(found).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const [, ref] = callbackData(question, 'Approve').split(' ');
    const jobId = `${hook}-${ref}`;
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    return { question: structuredClone(question), jobId };
  }
  const press = (
    hook: string,
    chatId: number,
    question: TelegramMessage,
    label: string,
    from: typeof TG_ASKER,
    secret = TG_SECRET,
  ) =>
    harness.post(hook, JSON.stringify(telegram.pressButton(chatId, question.message_id, callbackData(question, label), from)), {
      [TELEGRAM_SECRET_HEADER]: secret,
    });

  it('Approve runs the tool once, the message is edited to say who approved, and a replayed press changes nothing', async () => {
    const chatId = 7101;
    const { question, jobId } = await ask('tg', 'telegram approve', chatId);
    expect(question.text).toBe('May I run create_ticket with {"title":"telegram approve"}?');
    // callback_data holds the job's short id and the call's key, within Telegram's 64 bytes.
    expect(Buffer.byteLength(callbackData(question, 'Approve'))).toBeLessThanOrEqual(64);

    const update = telegram.pressButton(chatId, question.message_id, callbackData(question, 'Approve'), TG_ASKER);
    expect((await harness.post('tg', JSON.stringify(update), { [TELEGRAM_SECRET_HEADER]: TG_SECRET })).status).toBe(200);
    await eventually(
      () =>
        expect(telegram.chat(chatId).map((m) => m.text)).toContain(
          `tools said: ticket #${mcp.tickets.length} created: telegram approve`,
        ),
      400,
      25,
    );
    expect(made('telegram approve')).toBe(1);
    const edited = telegram.chat(chatId).find((m) => m.message_id === question.message_id)!;
    expect(edited.text).toBe('✅ Ada approved create_ticket with {"title":"telegram approve"}.');
    expect(edited.reply_markup).toBeUndefined();
    expect(telegram.callbackAnswers.at(-1)).toEqual({ callback_query_id: update.callback_query.id, text: 'Approved' });
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));

    // Telegram delivering the same update again: nothing changes.
    expect((await harness.post('tg', JSON.stringify(update), { [TELEGRAM_SECRET_HEADER]: TG_SECRET })).status).toBe(200);
    expect(made('telegram approve')).toBe(1);
    expect(telegram.chat(chatId).find((m) => m.message_id === question.message_id)!.text).toBe(edited.text);
  });

  it('refuses a press without the secret token (401) and one by someone else (a quiet answer to them); Deny gives the model the denial', async () => {
    const chatId = 7102;
    const { question, jobId } = await ask('tg', 'telegram deny', chatId);

    expect((await press('tg', chatId, question, 'Approve', TG_ASKER, 'wrong-secret')).status).toBe(401);
    expect((await press('tg', chatId, question, 'Approve', TG_OTHER)).status).toBe(200);
    await eventually(() => expect(telegram.callbackAnswers.at(-1)?.text).toMatch(/^Only the person who asked/));
    expect(await jobState(jobId)).toBe('delayed');
    expect(telegram.chat(chatId).find((m) => m.message_id === question.message_id)!.reply_markup).toBeDefined();

    expect((await press('tg', chatId, question, 'Deny', TG_ASKER)).status).toBe(200);
    await eventually(
      () =>
        expect(telegram.chat(chatId).map((m) => m.text)).toContain(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('telegram deny')).toBe(0);
    expect(telegram.chat(chatId).find((m) => m.message_id === question.message_id)!.text).toMatch(/^❌ Ada denied create_ticket/);
  });

  it('counts only the configured approvers: the asker is refused, the approver decides', async () => {
    const chatId = 7103;
    const { question } = await ask('tgBoss', 'telegram boss', chatId);
    expect((await press('tgBoss', chatId, question, 'Approve', TG_ASKER)).status).toBe(200);
    await eventually(() => expect(telegram.callbackAnswers.at(-1)?.text).toMatch(/^Only the person who asked/));
    expect(made('telegram boss')).toBe(0);
    expect((await press('tgBoss', chatId, question, 'Approve', TG_OTHER)).status).toBe(200);
    await eventually(() => expect(made('telegram boss')).toBe(1), 400, 25);
    expect(telegram.chat(chatId).find((m) => m.message_id === question.message_id)!.text).toMatch(/^✅ Mallory approved/);
  });
});

describe('approvals with Discord buttons', () => {
  let seq = 0;
  /** Signed as Discord signs interactions (Ed25519 over timestamp + body). */
  const send = (body: unknown, privateKey = DISCORD_KEYS.privateKey) => {
    const raw = JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return harness.post('dc', raw, discordSignedHeaders(privateKey, Buffer.from(raw), timestamp));
  };
  async function ask(text: string): Promise<{ question: DiscordPost; jobId: string; token: string }> {
    seq++;
    const token = `approvals-interaction-${seq}`;
    discord.interaction(token);
    const command = discordCommand({
      id: `13294812345699${String(seq).padStart(5, '0')}`,
      token,
      data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: text }] },
    });
    const res = await send(command);
    expect(await res.json()).toEqual({ type: 5 });
    const question = await eventually(
      () => {
        const found = discord.responses(token).find((p) => p.components?.length);
        expect(found).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const [, ref] = discordButtonPress(question, 'Approve', DC_ASKER).data.custom_id.split(' ');
    const jobId = `dc-${ref}`;
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    return { question: structuredClone(question), jobId, token };
  }

  it('Approve answers the press with the question rewritten (type 7, no buttons), runs the tool once, and the model gets its result', async () => {
    const { question, jobId, token } = await ask('discord approve');
    expect(question.content).toBe('May I run **create_ticket** with `{"title":"discord approve"}`?');

    const res = await send(discordButtonPress(question, 'Approve', DC_ASKER));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      type: 7,
      data: {
        content: '✅ **Ada** approved **create_ticket** with `{"title":"discord approve"}`.',
        components: [],
        allowed_mentions: { parse: [] },
      },
    });
    await eventually(
      () =>
        expect(discord.responses(token)[0]!.content).toBe(`tools said: ticket #${mcp.tickets.length} created: discord approve`),
      400,
      25,
    );
    expect(made('discord approve')).toBe(1);
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));

    // Pressed again after the decision: only the presser is told, nothing changes.
    const again = await send(discordButtonPress(question, 'Approve', DC_ASKER));
    expect((await again.json()).data).toMatchObject({ flags: 64, content: expect.stringMatching(/not waiting/) });
    expect(made('discord approve')).toBe(1);
  });

  it('refuses a forged press (401) and a stranger’s press (ephemeral, nothing changes); Deny gives the model the denial', async () => {
    const { question, jobId, token } = await ask('discord deny');
    expect((await send(discordButtonPress(question, 'Approve', DC_ASKER), discordKeys().privateKey)).status).toBe(401);
    const stranger = await send(discordButtonPress(question, 'Approve', DC_OTHER));
    expect(await stranger.json()).toEqual({
      type: 4,
      data: { content: 'Only the person who asked, or an approver of this bot, may decide on this call.', flags: 64 },
    });
    expect(await jobState(jobId)).toBe('delayed');

    const deny = await send(discordButtonPress(question, 'Deny', DC_ASKER));
    expect((await deny.json()).data.content).toMatch(/^❌ \*\*Ada\*\* denied \*\*create_ticket\*\*/);
    await eventually(
      () =>
        expect(discord.responses(token)[0]!.content).toBe(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('discord deny')).toBe(0);
  });
});

describe('approvals with a Teams Adaptive Card', () => {
  let seq = 0;
  const serviceUrl = () => `${teams.url}/`;
  const send = async (body: unknown, token?: string) =>
    harness.post('ms', JSON.stringify(body), { authorization: `Bearer ${token ?? (await teams.sign(serviceUrl()))}` });
  async function ask(text: string) {
    seq++;
    const conversation = `19:approvals${seq}@thread.tacv2`;
    const message = teamsMessageActivity(serviceUrl(), {
      id: `17369425${String(seq).padStart(5, '0')}`,
      text: `<at>Switchboard</at> ${text}`,
      from: TEAMS_ASKER,
      conversation: { id: conversation, conversationType: 'channel' },
    });
    expect((await send(message)).status).toBe(200);
    const card = await eventually(
      () => {
        const found = teams.replies.find((r) => r.conversationId === conversation && r.attachments?.length);
        expect(found).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const data = (teamsCardSubmit(serviceUrl(), card, 'Approve', TEAMS_ASKER, 'x').value as { switchboard: string }).switchboard;
    const jobId = `ms-${data.split(' ')[1]}`;
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    return { card: structuredClone(card), conversation, jobId };
  }
  const press = (card: { id: string }, title: string, from: typeof TEAMS_ASKER) =>
    teamsCardSubmit(serviceUrl(), card as never, title, from, `1736942600${String(++seq).padStart(4, '0')}`);
  const cardText = (conversation: string, id: string) => {
    const card = teams.replies.find((r) => r.conversationId === conversation && r.id === id)!;
    return { card, text: (card.attachments![0]!.content as { body: { text: string }[] }).body[0]!.text };
  };

  it('Approve on the card runs the tool once; the card is updated to say who approved, without buttons; a stranger’s submit and a forged one change nothing', async () => {
    const { card, conversation, jobId } = await ask('teams approve');
    expect(cardText(conversation, card.id).text).toBe('May I run **create_ticket** with `{"title":"teams approve"}`?');

    expect((await send(press(card, 'Approve', TEAMS_ASKER), await teams.sign(serviceUrl(), { foreign: true }))).status).toBe(401);
    expect((await send(press(card, 'Approve', TEAMS_OTHER))).status).toBe(200);
    expect(await jobState(jobId)).toBe('delayed');

    expect((await send(press(card, 'Approve', TEAMS_ASKER))).status).toBe(200);
    await eventually(
      () =>
        expect(teams.replies.filter((r) => r.conversationId === conversation).map((r) => r.text)).toContain(
          `tools said: ticket #${mcp.tickets.length} created: teams approve`,
        ),
      400,
      25,
    );
    expect(made('teams approve')).toBe(1);
    const { card: updated, text } = cardText(conversation, card.id);
    expect(text).toBe('✅ **Ada Lovelace** approved **create_ticket** with `{"title":"teams approve"}`.');
    expect((updated.attachments![0]!.content as { actions?: unknown }).actions).toBeUndefined();
  });

  it('Deny gives the model the denial and the tool never runs', async () => {
    const { card, conversation } = await ask('teams deny');
    expect((await send(press(card, 'Deny', TEAMS_ASKER))).status).toBe(200);
    await eventually(
      () =>
        expect(teams.replies.filter((r) => r.conversationId === conversation).map((r) => r.text)).toContain(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('teams deny')).toBe(0);
    expect(cardText(conversation, card.id).text).toMatch(/^❌ \*\*Ada Lovelace\*\* denied/);
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

function callbackData(message: TelegramMessage, label: string): string {
  const button = message.reply_markup?.inline_keyboard.flat().find((b) => b.text === label);
  if (!button || !('callback_data' in button)) throw new Error(`no '${label}' button`);
  return button.callback_data;
}

describe('approvals with WhatsApp reply buttons', () => {
  let seq = 0;
  const signed = (body: unknown, secret = WA_SECRET) => {
    const raw = JSON.stringify(body);
    return harness.post('wa', raw, { 'x-hub-signature-256': whatsappSignature(secret, raw) });
  };
  // Each test its own customer: a conversation of its own.
  async function ask(text: string, from: string) {
    whatsapp.customerWrote(from);
    const wamid = `wamid.approvals${++seq}`;
    expect((await signed(whatsappTextWebhook({ id: wamid, from, text: { body: text } }))).status).toBe(200);
    const question = await eventually(
      () => {
        const found = whatsapp.sent.find((m) => m.replyTo === wamid && m.buttons);
        expect(found).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const jobId = `wa-${question.buttons![0]!.id.split(' ')[1]}`;
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    return { question, jobId };
  }
  const tap = (
    question: { id: string; buttons?: { id: string; title: string }[] },
    title: string,
    from = WA_ASKER,
    name = 'Sheena Nelson',
  ) => whatsappButtonReplyWebhook(question.id, question.buttons!.find((b) => b.title === title)!, from, name);

  it('asks with Approve / Deny reply buttons quoting the message; Approve runs the tool once and says who approved', async () => {
    const { question, jobId } = await ask('whatsapp approve', WA_ASKER);
    expect(question).toMatchObject({ to: WA_ASKER, body: 'May I run *create_ticket* with ```{"title":"whatsapp approve"}```?' });
    expect(question.buttons!.map((b) => b.title)).toEqual(['Approve', 'Deny']);

    const approve = tap(question, 'Approve');
    expect((await signed(approve, 'not-the-app-secret')).status).toBe(401);
    expect(await jobState(jobId)).toBe('delayed');
    expect((await signed(approve)).status).toBe(200);
    await eventually(
      () =>
        expect(whatsapp.sent.map((m) => m.body)).toContain(`tools said: ticket #${mcp.tickets.length} created: whatsapp approve`),
      400,
      25,
    );
    expect(made('whatsapp approve')).toBe(1);
    const outcome = whatsapp.sent.find((m) => m.replyTo === question.id && !m.buttons);
    expect(outcome?.body).toBe('✅ Sheena Nelson approved *create_ticket* with ```{"title":"whatsapp approve"}```.');
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));
  });

  it('tells a stranger alone that they may not decide; Deny gives the model the denial', async () => {
    const { question, jobId } = await ask('whatsapp deny', WA_ASKER2);
    whatsapp.customerWrote(WA_OTHER);
    expect((await signed(tap(question, 'Approve', WA_OTHER, 'Mallory'))).status).toBe(200);
    await eventually(() =>
      expect(whatsapp.sent.filter((m) => m.to === WA_OTHER).map((m) => m.body)).toEqual([
        'Only the person who asked, or an approver of this bot, may decide on this call.',
      ]),
    );
    expect(await jobState(jobId)).toBe('delayed');

    expect((await signed(tap(question, 'Deny', WA_ASKER2))).status).toBe(200);
    await eventually(
      () =>
        expect(whatsapp.sent.map((m) => m.body)).toContain(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('whatsapp deny')).toBe(0);
    expect(whatsapp.sent.find((m) => m.replyTo === question.id && !m.buttons)?.body).toMatch(/^❌ Sheena Nelson denied/);
  });
});

describe('approvals with Mattermost message buttons', () => {
  let seq = 0;
  async function ask(text: string) {
    const trigger = `trigger-approvals-${++seq}`;
    // Each test its own channel: a conversation of its own.
    const channel = `approvalschannel${seq}`;
    const form = formBody(
      mattermostSlashCommand({ token: MM_TOKEN, text, channel_id: channel, user_id: MM_ASKER.id, trigger_id: trigger }),
    );
    expect((await harness.post('mm', form, { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200);
    const question = await eventually(
      () => {
        const found = mattermost.botPosts().find((p) => p.message.endsWith(`{"title":"${text}"}\`?`));
        expect(found?.props?.attachments).toBeDefined();
        return found!;
      },
      400,
      25,
    );
    const sb = (question.props!.attachments![0]!.actions![0]!.integration!.context as { sb: string }).sb;
    const jobId = `mm-${sb.split(' ')[1]}`;
    await eventually(async () => expect(await jobState(jobId)).toBe('delayed'), 400, 25);
    return { question, jobId };
  }
  /** The server's POST of a click to the button's integration url, and what it does with our answer. */
  async function click(
    postId: string,
    actionId: string,
    user: typeof MM_ASKER,
    tamper?: (body: Record<string, unknown>) => void,
  ) {
    const { url, body } = mattermost.click(postId, actionId, user);
    expect(url).toBe(MM_ACTION_URL);
    tamper?.(body as unknown as Record<string, unknown>);
    const res = await harness.post('mm', JSON.stringify(body));
    const answer = res.status === 200 ? await res.json() : undefined;
    if (answer) mattermost.answered(postId, user.id, answer);
    return res;
  }

  it('posts the question with signed buttons; Approve updates the post to say who approved, without buttons, and runs the tool once', async () => {
    const { question, jobId } = await ask('mattermost approve');
    expect(question.message).toBe('May I run **create_ticket** with `{"title":"mattermost approve"}`?');
    expect(question.props!.attachments![0]!.actions!.map((a) => [a.id, a.name, a.type])).toEqual([
      ['approve', 'Approve', 'button'],
      ['deny', 'Deny', 'button'],
    ]);
    expect((await click(question.id, 'approve', MM_ASKER)).status).toBe(200);
    expect(question.message).toBe('✅ @ada approved **create_ticket** with `{"title":"mattermost approve"}`.');
    expect(question.props).toEqual({});
    await eventually(
      () =>
        expect(mattermost.botPosts().map((p) => p.message)).toContain(
          `tools said: ticket #${mcp.tickets.length} created: mattermost approve`,
        ),
      400,
      25,
    );
    expect(made('mattermost approve')).toBe(1);
    await eventually(async () => expect(await jobState(jobId)).toBe('completed'));
    expect(question.message).toBe('✅ @ada approved **create_ticket** with `{"title":"mattermost approve"}`.');
  });

  it('refuses a click whose context we did not sign (401) and answers a stranger with ephemeral text; Deny gives the model the denial', async () => {
    const { question, jobId } = await ask('mattermost deny');
    const forged = await click(question.id, 'deny', MM_ASKER, (body) => {
      const context = body.context as { sb: string; sig: string };
      body.context = { ...context, sb: context.sb.replace(/^n/, 'y') };
    });
    expect(forged.status).toBe(401);
    expect((await click(question.id, 'approve', MM_OTHER)).status).toBe(200);
    expect(mattermost.ephemerals.at(-1)).toEqual({
      user_id: MM_OTHER.id,
      message: 'Only the person who asked, or an approver of this bot, may decide on this call.',
    });
    expect(await jobState(jobId)).toBe('delayed');
    expect(question.props?.attachments).toBeDefined();

    expect((await click(question.id, 'deny', MM_ASKER)).status).toBe(200);
    await eventually(
      () =>
        expect(mattermost.botPosts().map((p) => p.message)).toContain(
          'tools said: Error: the call was denied by the person asked to approve it.',
        ),
      400,
      25,
    );
    expect(made('mattermost deny')).toBe(0);
    expect(question.message).toMatch(/^❌ @ada denied \*\*create_ticket\*\*/);
  });
});
