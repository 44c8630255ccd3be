import {
  type Handler,
  type RecordedRequest,
  sendJson,
  slackMessageEvent,
  slackPostedMessage,
  slackSignedHeaders,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BOT_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const REVOKED_TOKEN = 'xoxb-17653672481-19874698323-revokedrevokedrev';
const BOT_USER = 'U0BOT';

/** slack.com/api as the Web API documents it: HTTP 200 with `{ok, …}`, `invalid_auth` for a token it does not know. */
const slackApi: Handler = (req, res) => {
  if (req.method !== 'POST' || req.url !== '/api/chat.postMessage') {
    return sendJson(res, 404, { ok: false, error: 'unknown_method' });
  }
  if (req.headers.authorization !== `Bearer ${BOT_TOKEN}`) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
  const { channel, text } = req.json as { channel: string; text: string };
  sendJson(res, 200, slackPostedMessage(channel, text));
};

let harness: HookHarness;

beforeAll(async () => {
  // Whole replies (stream: false): streamed ones are hooks-live-*.integration.test.ts's.
  const hook = (apiUrl: string, botToken = BOT_TOKEN) => ({
    type: 'slack',
    signingSecret: SIGNING_SECRET,
    botToken,
    botUserId: BOT_USER,
    apiUrl,
    stream: false,
  });
  harness = await startHookHarness({
    platform: slackApi,
    hooks: (url) => ({ team: hook(`${url}/api`), counted: hook(`${url}/api`), revoked: hook(`${url}/api`, REVOKED_TOKEN) }),
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** A message event of its own: a fresh event_id and ts, so tests never share a thread by accident. */
function event(fields: Record<string, unknown> = {}) {
  seq++;
  return slackMessageEvent({ ts: `17369424${String(seq).padStart(2, '0')}.000100`, ...fields }, { event_id: `Ev0E2E${seq}` });
}

/** Sends `body` as Slack does: signed now (or at `signedAt`), with any extra headers. */
function send(
  body: unknown,
  options: { hook?: string; signedAt?: number; secret?: string; headers?: Record<string, string> } = {},
) {
  const rawBody = JSON.stringify(body);
  const signed = slackSignedHeaders(options.secret ?? SIGNING_SECRET, rawBody, options.signedAt ?? Date.now());
  return harness.post(options.hook ?? 'team', rawBody, { ...signed, ...options.headers });
}

const posts = (): RecordedRequest[] => harness.platform.requests.filter((r) => r.url === '/api/chat.postMessage');
const postsTo = (channel: string, thread: string) =>
  posts().filter((r) => {
    const json = r.json as { channel: string; thread_ts: string };
    return json.channel === channel && json.thread_ts === thread;
  });
const texts = (requests: RecordedRequest[]) => requests.map((r) => (r.json as { text: string }).text);

describe('Slack hooks: verification', () => {
  it('answers url_verification with its challenge', async () => {
    const challenge = '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P';
    const res = await send({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge });
  });

  it('answers 401 in the JSON error shape when the Slack signature is wrong or missing', async () => {
    const before = await harness.channel('team');
    const body = event({ text: 'forged' });
    const unsigned = await harness.post('team', JSON.stringify(body));
    for (const res of [await send(body, { secret: 'another-signing-secret' }), unsigned]) {
      expect(res.status).toBe(401);
      const json = await res.json();
      expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
    }
    expect((await harness.channel('team')).messages_in).toBe(before.messages_in);
  });

  it('answers 401 when the Slack signature is stale', async () => {
    const res = await send(event({ text: 'replayed' }), { signedAt: Date.now() - 6 * 60_000 });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('invalid_signature');
  });
});

describe('Slack hooks: answering', () => {
  it('acknowledges a signed message at once and posts the reply in its thread with the bot token', async () => {
    const release = harness.holdModel();
    const body = event({ text: 'What is a monad?' });
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(postsTo('C0123', body.event.ts)).toHaveLength(0); // acknowledged before the model has answered

    release();
    const [post] = await eventually(() => {
      const found = postsTo('C0123', body.event.ts);
      expect(found).toHaveLength(1);
      return found;
    }, 200);
    expect(post?.method).toBe('POST');
    expect(post?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(post?.json).toEqual({ channel: 'C0123', text: 'reply to: What is a monad? (history: 0)', thread_ts: body.event.ts });
  });

  it('answers a retried delivery of the same event once', async () => {
    const first = event({ text: 'only once' });
    expect((await send(first)).status).toBe(200);
    const retry = await send(first, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    expect(retry.status).toBe(200);

    // A later message in the thread waits for every earlier one: had the retry been queued, it would show history 4.
    const followUp = event({ text: 'and then?', thread_ts: first.event.ts });
    await send(followUp);
    const replies = await eventually(() => {
      const found = texts(postsTo('C0123', first.event.ts));
      expect(found).toHaveLength(2);
      return found;
    }, 200);
    expect(replies).toEqual(['reply to: only once (history: 0)', 'reply to: and then? (history: 2)']);
    expect(harness.modelCalls('only once')).toBe(1);
  });

  it("ignores bot messages, message subtypes and the bot's own user", async () => {
    const thread = event().event.ts;
    const ignored = [
      event({ text: 'from a bot', thread_ts: thread, bot_id: 'B0999' }),
      event({ text: 'an edit', thread_ts: thread, subtype: 'message_changed' }),
      event({ text: 'from myself', thread_ts: thread, user: BOT_USER }),
    ];
    for (const body of ignored) {
      const res = await send(body);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    }
    // Had any of them been answered, this message would see it in its thread's history.
    await send(event({ text: 'anyone there?', thread_ts: thread }));
    await eventually(() => expect(texts(postsTo('C0123', thread))).toEqual(['reply to: anyone there? (history: 0)']), 200);
    for (const text of ['from a bot', 'an edit', 'from myself']) expect(harness.modelCalls(text)).toBe(0);
  });

  it('remembers a conversation per channel and thread', async () => {
    const top = event({ text: 'first in thread' });
    const thread = top.event.ts;
    const other = event({ text: 'another thread' });
    await send(top);
    await send(event({ text: 'second in thread', thread_ts: thread }));
    await send(other);
    await send(event({ text: 'same thread_ts, other channel', channel: 'C0999', thread_ts: thread }));

    await eventually(
      () =>
        expect(texts(postsTo('C0123', thread))).toEqual([
          'reply to: first in thread (history: 0)',
          'reply to: second in thread (history: 2)',
        ]),
      200,
    );
    await eventually(
      () => expect(texts(postsTo('C0123', other.event.ts))).toEqual(['reply to: another thread (history: 0)']),
      200,
    );
    await eventually(
      () => expect(texts(postsTo('C0999', thread))).toEqual(['reply to: same thread_ts, other channel (history: 0)']),
      200,
    );
  });
});

describe('Slack hooks: failures and status', () => {
  it('fails the job when Slack answers invalid_auth, and /status shows the channel disconnected', async () => {
    const res = await send(event({ text: 'with a revoked token' }), { hook: 'revoked' });
    expect(res.status).toBe(200);
    await eventually(async () => expect((await harness.queue()).failed).toBe(1), 200);
    // Messages in are counted in the API and written within a second.
    const channel = await eventually(async () => {
      const revoked = await harness.channel('revoked');
      expect(revoked).toMatchObject({ type: 'slack', connected: false, messages_in: 1, messages_out: 0 });
      return revoked;
    });
    expect(channel.last_error).toMatch(/invalid_auth/);
    expect(channel.last_error).not.toContain(REVOKED_TOKEN);
    // Refused credentials are not retried: one call, and the model was asked once.
    expect(posts().filter((r) => r.headers.authorization === `Bearer ${REVOKED_TOKEN}`)).toHaveLength(1);
    expect(harness.modelCalls('with a revoked token')).toBe(1);
  });

  it('lists the hook in /status with its type, counting answered messages in and out', async () => {
    expect(await harness.channel('counted')).toMatchObject({ type: 'slack', messages_in: 0, messages_out: 0 });
    const first = event({ text: 'count one' });
    await send(first, { hook: 'counted' });
    await send(first, { hook: 'counted', headers: { 'x-slack-retry-num': '1' } });
    await send(event({ text: 'not counted', bot_id: 'B0999' }), { hook: 'counted' });
    await send(event({ text: 'count two' }), { hook: 'counted' });

    // The API counts messages in and the worker messages out, each in batches of its own: either may be written first.
    const channel = await eventually(async () => {
      const counted = await harness.channel('counted');
      expect(counted).toMatchObject({ name: 'counted', type: 'slack', connected: true, messages_in: 2, messages_out: 2 });
      return counted;
    }, 200);
    expect(channel.last_error).toBeNull();
    expect(Date.parse(channel.last_outbound_at ?? '')).not.toBeNaN();
  });
});
