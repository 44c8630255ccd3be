import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type RecordedRequest,
  sendJson,
  slackMessageEvent,
  slackPostedMessage,
  slackSignedHeaders,
  TELEGRAM_SECRET_HEADER,
  telegramSentMessage,
  telegramUpdate,
  WHATSAPP_PHONE_NUMBER_ID,
  type WhatsAppGraph,
  whatsappGraph,
  whatsappSignature,
  whatsappTextWebhook,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_REPLIES } from '../services/access-gate.js';
import { awayFromRateWindowEdge, eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

/**
 * Who the bot answers (docs/access.md), end to end on Telegram, Slack and WhatsApp: each platform's
 * fake API, the real API and worker, Redis. What a user sees is what the fakes were sent.
 */

const ADMIN_KEY = 'admin-key-for-access-tests-0123456789';
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

// Telegram: the bot's id is the number before the token's colon (getMe's `id`).
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_BOT_ID = 110_201_543;
const TG_SECRET = 'tg-webhook-secret_0123';
const TG_SEND = `/bot${TG_TOKEN}/sendMessage`;
const GROUP = -100_555_000_111;

const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const SLACK_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';

const WA_SECRET = 'whatsapp-app-secret-0123';
const WA_VERIFY = 'whatsapp-verify-token-0123';
const WA_TOKEN = 'EAAG-whatsapp-access-token-0123';
/** The display number of the business in the fake's webhooks (whatsappTextWebhook's metadata). */
const WA_BUSINESS = '15550783881';

let graph: WhatsAppGraph;
let harness: HookHarness;
let messageIds = 5000;

/** One local server for three platforms: the Bot API, Slack's Web API, the Graph API. */
function platform(req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) {
  if (req.url?.startsWith('/bot')) {
    if (req.url !== TG_SEND) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const { chat_id, text } = req.json as { chat_id: number; text: string };
    return sendJson(res, 200, telegramSentMessage(chat_id, text, ++messageIds));
  }
  if (req.url === '/api/chat.postMessage') {
    if (req.headers.authorization !== `Bearer ${SLACK_TOKEN}`) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
    const { channel, text } = req.json as { channel: string; text: string };
    return sendJson(res, 200, slackPostedMessage(channel, text));
  }
  return graph.handler(req, res, raw);
}

beforeAll(async () => {
  graph = whatsappGraph({ accessToken: WA_TOKEN, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID });
  const telegram = (url: string, extra: Record<string, unknown>) => ({
    type: 'telegram',
    botToken: TG_TOKEN,
    secretToken: TG_SECRET,
    botUsername: 'switchboard_bot',
    apiUrl: url,
    stream: false,
    ...extra,
  });
  harness = await startHookHarness({
    platform,
    config: { adminKeys: [ADMIN_KEY] },
    hooks: (url) => ({
      // Groups on mention (the default once `access` is set), the rest kept as context; two messages a minute each.
      tg: telegram(url, {
        access: { groupContext: true },
        help: 'I am the team bot: mention me in the group.',
        rateLimit: { perUser: 2 },
      }),
      // No `access`: answers everyone everywhere, as before.
      tgopen: telegram(url, {}),
      // Streamed replies: a fixed reply is put in place by the live side, without a model call.
      tglive: telegram(url, { stream: true, access: {} }),
      gen: { type: 'generic', token: 'generic-access-token-0123', access: { users: ['ann'] } },
      slack: {
        type: 'slack',
        signingSecret: SLACK_SECRET,
        botToken: SLACK_TOKEN,
        apiUrl: `${url}/api`,
        stream: false,
        access: { users: ['U0ANN'] },
      },
      wa: {
        type: 'whatsapp',
        appSecret: WA_SECRET,
        verifyToken: WA_VERIFY,
        accessToken: WA_TOKEN,
        apiUrl: url,
        access: { dm: 'pairing' },
      },
    }),
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
const tgSends = () =>
  harness.platform.requests.filter((r) => r.url === TG_SEND).map((r) => r.json as { chat_id: number; text: string });
const tgSentTo = (chat: number) =>
  tgSends()
    .filter((m) => m.chat_id === chat)
    .map((m) => m.text);

/** A Telegram update of its own, from `user` in `chat` (a group unless it is the user's own id). */
function tgUpdate(text: string, options: { chat?: number; user?: number; fields?: Record<string, unknown> } = {}) {
  seq++;
  const user = options.user ?? 700_000 + seq;
  const chat = options.chat ?? GROUP;
  return telegramUpdate(
    {
      text,
      message_id: seq,
      from: { id: user, is_bot: false, first_name: `User${user}` },
      chat:
        chat === user
          ? { id: chat, type: 'private', first_name: `User${user}` }
          : { id: chat, type: 'supergroup', title: 'Team' },
      ...options.fields,
    },
    { update_id: 900_000 + seq },
  );
}

const postTelegram = (hook: string, body: unknown) =>
  harness.post(hook, JSON.stringify(body), { [TELEGRAM_SECRET_HEADER]: TG_SECRET });

function postSlack(event: Record<string, unknown>) {
  seq++;
  const raw = JSON.stringify(
    slackMessageEvent({ ts: `1736950000.${String(seq).padStart(6, '0')}`, ...event }, { event_id: `EvAcc${seq}` }),
  );
  return harness.post('slack', raw, slackSignedHeaders(SLACK_SECRET, raw, Date.now()));
}
const slackSent = (channel: string) =>
  harness.platform.requests
    .filter((r) => r.url === '/api/chat.postMessage')
    .map((r) => r.json as { channel: string; text: string })
    .filter((m) => m.channel === channel)
    .map((m) => m.text);

function postWhatsApp(body: unknown) {
  const raw = JSON.stringify(body);
  return harness.post('wa', raw, { 'x-hub-signature-256': whatsappSignature(WA_SECRET, raw) });
}
const waText = (from: string, text: string, message: Record<string, unknown> = {}) =>
  whatsappTextWebhook({ from, id: `wamid.acc${++seq}`, text: { body: text }, ...message });
const waSentTo = (to: string) => graph.sent.filter((m) => m.to === to).map((m) => m.body);

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${harness.gateway.url}${path}`, { ...init, headers: { ...ADMIN, ...(init.headers as Record<string, string>) } });

/** Waits until the queue is idle, so "nothing was sent" is said after the worker had its chance. */
async function settled() {
  await eventually(async () => {
    const queue = await harness.queue();
    expect(queue.waiting + queue.active + queue.delayed).toBe(0);
  });
}

describe('Telegram groups (access set: mention only)', () => {
  it('answers a mention and a reply to the bot, keeps the other messages as context, and answers none of them', async () => {
    const chat = GROUP - 1;
    expect((await postTelegram('tg', tgUpdate('the deploy is at five', { chat }))).status).toBe(200);
    await postTelegram('tg', tgUpdate('and the release notes are done', { chat }));
    await postTelegram(
      'tg',
      tgUpdate('@switchboard_bot when is the deploy?', {
        chat,
        fields: { entities: [{ type: 'mention', offset: 0, length: 16 }] },
      }),
    );
    await eventually(() => expect(tgSentTo(chat)).toHaveLength(1));
    // The two context messages came before the question, unanswered: the model saw them as history.
    expect(tgSentTo(chat)[0]).toBe('reply to: @switchboard_bot when is the deploy? (history: 2)');

    const reply = tgUpdate('and the notes?', {
      chat,
      fields: {
        reply_to_message: {
          message_id: 1,
          from: { id: TG_BOT_ID, is_bot: true, first_name: 'Bot' },
          chat: { id: chat, type: 'supergroup' },
          date: 1,
          text: 'x',
        },
      },
    });
    await postTelegram('tg', reply);
    await eventually(() => expect(tgSentTo(chat)).toHaveLength(2));
    expect(tgSentTo(chat)[1]).toBe('reply to: and the notes? (history: 4)');
    expect(harness.modelCalls('the deploy is at five')).toBe(0);
  });

  it('takes a mention of another user or a command for another bot for no mention', async () => {
    const chat = GROUP - 2;
    await postTelegram(
      'tg',
      tgUpdate('@someone_else hello', { chat, fields: { entities: [{ type: 'mention', offset: 0, length: 13 }] } }),
    );
    await postTelegram(
      'tg',
      tgUpdate('/help@other_bot', { chat, fields: { entities: [{ type: 'bot_command', offset: 0, length: 15 }] } }),
    );
    await settled();
    expect(tgSentTo(chat)).toEqual([]);
  });

  it('answers every group message of a hook without access, as before', async () => {
    const chat = GROUP - 3;
    await postTelegram('tgopen', tgUpdate('no mention here', { chat }));
    await eventually(() => expect(tgSentTo(chat)).toEqual(['reply to: no mention here (history: 0)']));
  });
});

describe('Commands', () => {
  it("answers /help and /start with the hook's help text, and /reset forgets the conversation and says so", async () => {
    const user = 810_001;
    await postTelegram('tg', tgUpdate('/start', { chat: user, user }));
    await eventually(() => expect(tgSentTo(user)).toEqual(['I am the team bot: mention me in the group.']));
    await postTelegram('tg', tgUpdate('remember the number 7', { chat: user, user }));
    await eventually(() => expect(tgSentTo(user)).toHaveLength(2));
    // A third message within the minute would meet the per-user limit: a second user goes on.
    const other = 810_002;
    await postTelegram('tg', tgUpdate('first words', { chat: other, user: other }));
    await eventually(() => expect(tgSentTo(other)).toEqual(['reply to: first words (history: 0)']));
    await postTelegram('tg', tgUpdate('/reset', { chat: other, user: other }));
    await eventually(() => expect(tgSentTo(other)).toEqual(['reply to: first words (history: 0)', ACCESS_REPLIES.reset]));
    expect(harness.modelCalls('/reset')).toBe(0);
    expect(harness.modelCalls('/start')).toBe(0);
  });

  it('reads /reset written to the bot by name in a group', async () => {
    const chat = GROUP - 4;
    const user = 820_001;
    await postTelegram(
      'tg',
      tgUpdate('/reset@switchboard_bot', { chat, user, fields: { entities: [{ type: 'bot_command', offset: 0, length: 22 }] } }),
    );
    await eventually(() => expect(tgSentTo(chat)).toEqual([ACCESS_REPLIES.reset]));
  });
});

describe('Fixed replies on other paths', () => {
  it('puts /help in place on a hook that streams its replies', async () => {
    const user = 840_001;
    await postTelegram('tglive', tgUpdate('/help', { chat: user, user }));
    await eventually(() => expect(tgSentTo(user)).toEqual([ACCESS_REPLIES.help]));
    expect(harness.modelCalls('/help')).toBe(0);
  });

  it("on a generic hook: a stranger is told once, then ignored; a listed caller's /reset is confirmed", async () => {
    const post = (from: string, text: string) =>
      fetch(`${harness.gateway.url}/hooks/gen`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hook-token': 'generic-access-token-0123' },
        body: JSON.stringify({ from, text }),
      });
    const job = async (id: string) =>
      eventually(async () => {
        const res = await fetch(`${harness.gateway.url}/hooks/gen/jobs/${id}`, {
          headers: { 'x-hook-token': 'generic-access-token-0123' },
        });
        const view = await res.json();
        if (view.status !== 'completed') throw new Error(view.status);
        return view;
      });
    const first = await post('bob', 'hello');
    expect(first.status).toBe(202);
    expect((await job((await first.json()).id)).reply).toBe(ACCESS_REPLIES.denied);
    const second = await post('bob', 'hello again');
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ id: null, status: 'ignored' });
    const reset = await post('ann', '/reset');
    expect((await job((await reset.json()).id)).reply).toBe(ACCESS_REPLIES.reset);
    expect(harness.modelCalls('hello') + harness.modelCalls('hello again') + harness.modelCalls('/reset')).toBe(0);
  });
});

describe('Per-user limit', () => {
  it('answers a person politely once past their limit, then not at all until the minute ends', async () => {
    const user = 830_001;
    // The five must fall in one minute window (the limiter counts per calendar minute).
    await awayFromRateWindowEdge(15_000);
    for (const text of ['one', 'two', 'three', 'four', 'five']) await postTelegram('tg', tgUpdate(text, { chat: user, user }));
    await settled();
    const sent = tgSentTo(user);
    expect(sent).toHaveLength(3);
    expect(sent.slice(0, 2)).toEqual(['reply to: one (history: 0)', 'reply to: two (history: 2)']);
    expect(sent[2]).toMatch(/^You're sending messages faster than I can answer\. Please wait \d+ s, then try again\.$/);
    expect(harness.modelCalls('three') + harness.modelCalls('four') + harness.modelCalls('five')).toBe(0);
  });
});

describe('Slack (access.users)', () => {
  it('answers a listed person, and a stranger once with a short reply in a direct chat, then never', async () => {
    await postSlack({ user: 'U0ANN', channel: 'D0ANN', channel_type: 'im', text: 'hello' });
    await eventually(() => expect(slackSent('D0ANN')).toEqual(['reply to: hello (history: 0)']));
    await postSlack({ user: 'U0EVE', channel: 'D0EVE', channel_type: 'im', text: 'let me in' });
    await postSlack({ user: 'U0EVE', channel: 'D0EVE', channel_type: 'im', text: 'please' });
    await settled();
    expect(slackSent('D0EVE')).toEqual([ACCESS_REPLIES.denied]);
    expect(harness.modelCalls('let me in') + harness.modelCalls('please')).toBe(0);
  });

  it("in a channel answers only a mention of the bot (its id from the event's authorizations), and a stranger there never", async () => {
    await postSlack({ user: 'U0ANN', channel: 'C0TEAM', text: 'chatting among ourselves' });
    await postSlack({ user: 'U0EVE', channel: 'C0TEAM', text: '<@U0BOT> answer me' });
    await postSlack({ user: 'U0ANN', channel: 'C0TEAM', text: '<@U0BOT> what is the plan?' });
    await eventually(() => expect(slackSent('C0TEAM')).toEqual(['reply to: what is the plan? (history: 0)']));
    await settled();
    expect(slackSent('C0TEAM')).toHaveLength(1);
  });

  it('reads "@bot /reset" in a thread as the command, and forgets that thread', async () => {
    const thread = '1736959999.000001';
    await postSlack({ user: 'U0ANN', channel: 'C0RESET', ts: thread, text: '<@U0BOT> remember 42' });
    await eventually(() => expect(slackSent('C0RESET')).toHaveLength(1));
    await postSlack({ user: 'U0ANN', channel: 'C0RESET', thread_ts: thread, text: '<@U0BOT> /reset' });
    await eventually(() => expect(slackSent('C0RESET')).toEqual(['reply to: remember 42 (history: 0)', ACCESS_REPLIES.reset]));
    await postSlack({ user: 'U0ANN', channel: 'C0RESET', thread_ts: thread, text: '<@U0BOT> what number?' });
    await eventually(() => expect(slackSent('C0RESET')).toHaveLength(3));
    expect(slackSent('C0RESET')[2]).toBe('reply to: what number? (history: 0)');
  });
});

describe('WhatsApp pairing (dm: "pairing"), through the admin API', () => {
  it('gives a stranger a code and nothing else; approved, they are answered; revoked, they get a new code', async () => {
    const customer = '16505550911';
    graph.customerWrote(customer);
    await postWhatsApp(waText(customer, 'hi there'));
    await postWhatsApp(waText(customer, 'hello??'));
    await eventually(() => expect(waSentTo(customer)).toHaveLength(1));
    await settled();
    expect(waSentTo(customer)).toHaveLength(1);
    const code = /approve this code: ([A-Z0-9]{8})/.exec(waSentTo(customer)[0]!)?.[1];
    expect(code).toBeDefined();
    expect(harness.modelCalls('hi there') + harness.modelCalls('hello??')).toBe(0);

    const list = await (await admin('/admin/pairing')).json();
    expect(list.data).toContainEqual(
      expect.objectContaining({ code, hook: 'wa', user: customer, name: 'Sheena Nelson', age_seconds: expect.any(Number) }),
    );

    // Without the admin key, or with a wrong one, nothing is approved.
    const forged = await fetch(`${harness.gateway.url}/admin/pairing/${code}/approve`, { method: 'POST' });
    expect(forged.status).toBe(401);
    expect((await forged.json()).error).toMatchObject({ type: 'authentication_error' });
    const wrong = await fetch(`${harness.gateway.url}/admin/pairing/${code}/approve`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-the-admin-key-0123456789' },
    });
    expect(wrong.status).toBe(401);
    expect((await admin('/admin/pairing/ZZZZZZZZ/approve', { method: 'POST' })).status).toBe(404);

    const approved = await admin(`/admin/pairing/${code}/approve`, { method: 'POST' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toEqual({ code, hook: 'wa', user: customer, status: 'approved' });
    // Decided once: a second decision finds nothing.
    expect((await admin(`/admin/pairing/${code}/deny`, { method: 'POST' })).status).toBe(404);
    expect((await (await admin('/admin/pairing')).json()).data.map((r: { code: string }) => r.code)).not.toContain(code);

    // The person is told, once, that they may write now.
    await eventually(() => expect(waSentTo(customer)).toEqual([expect.any(String), ACCESS_REPLIES.approved]));
    await postWhatsApp(waText(customer, 'now may I?'));
    await eventually(() =>
      expect(waSentTo(customer)).toEqual([expect.any(String), ACCESS_REPLIES.approved, 'reply to: now may I? (history: 0)']),
    );

    const revoked = await admin(`/admin/hooks/wa/users/${customer}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect((await admin(`/admin/hooks/wa/users/${customer}`, { method: 'DELETE' })).status).toBe(404);
    await postWhatsApp(waText(customer, 'still there?'));
    await eventually(() => expect(waSentTo(customer)).toHaveLength(4));
    expect(waSentTo(customer)[3]).toMatch(/approve this code: [A-Z0-9]{8}/);
    expect(waSentTo(customer)[3]).not.toContain(code);
  });

  it('denies a request: the person is not answered, and the code is gone', async () => {
    const customer = '16505550922';
    graph.customerWrote(customer);
    await postWhatsApp(waText(customer, 'knock knock'));
    await eventually(() => expect(waSentTo(customer)).toHaveLength(1));
    const code = /approve this code: ([A-Z0-9]{8})/.exec(waSentTo(customer)[0]!)?.[1];
    const denied = await admin(`/admin/pairing/${code}/deny`, { method: 'POST' });
    expect(await denied.json()).toMatchObject({ status: 'denied', user: customer });
    expect((await admin(`/admin/pairing/${code}/approve`, { method: 'POST' })).status).toBe(404);
    await settled();
    expect(waSentTo(customer)).toHaveLength(1);
  });

  it('in a group answers only a reply to the business, into the group', async () => {
    const group = 'Ewhatsappgroup0001';
    graph.customerWrote(group);
    const member = '16505550933';
    await postWhatsApp(waText(member, 'lunch at noon?', { group_id: group }));
    await postWhatsApp(
      waText(member, 'bot, what do you think?', { group_id: group, context: { from: WA_BUSINESS, id: 'wamid.earlier' } }),
    );
    await eventually(() => expect(waSentTo(group)).toEqual(['reply to: bot, what do you think? (history: 0)']));
    expect(graph.sent.find((m) => m.to === group)?.recipientType).toBe('group');
    // Groups are not direct chats: a member who was never approved is no stranger to pair there.
    expect(waSentTo(member)).toEqual([]);
  });
});
