import {
  discordCommand,
  discordKeys,
  discordMessage,
  discordPing,
  discordSignedHeaders,
  type Handler,
  type RecordedRequest,
  sendJson,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const APPLICATION_ID = '1100000000000000001';
const WEBHOOKS = `/api/v10/webhooks/${APPLICATION_ID}/`;
const DISCORD_LIMIT = 2000;
const keys = discordKeys();

/** Words enough for three Discord messages. */
const LONG_REPLY = Array.from({ length: 700 }, (_, i) => `word${i}`).join(' ');

/** discord.com/api/v10 as documented: edits of `@original` and follow-ups answer with a message object. */
const discordApi: Handler = (req, res) => {
  const isEdit = req.method === 'PATCH' && /^[^/]+\/messages\/@original$/.test(req.url.slice(WEBHOOKS.length));
  const isFollowUp = req.method === 'POST' && /^[^/]+$/.test(req.url.slice(WEBHOOKS.length));
  if (!req.url.startsWith(WEBHOOKS) || !(isEdit || isFollowUp)) return sendJson(res, 404, { message: '404: Not Found', code: 0 });
  sendJson(res, 200, discordMessage((req.json as { content: string }).content));
};

let harness: HookHarness;

beforeAll(async () => {
  // Whole replies (stream: false): streamed ones are hooks-live-*.integration.test.ts's.
  const hook = (apiUrl: string) => ({
    type: 'discord',
    publicKey: keys.publicKeyHex,
    applicationId: APPLICATION_ID,
    apiUrl,
    stream: false,
  });
  harness = await startHookHarness({
    platform: discordApi,
    hooks: (url) => ({ dc: hook(`${url}/api/v10`), counted: hook(`${url}/api/v10`) }),
    replies: { 'tell me everything': LONG_REPLY },
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** `/ask prompt:<text>` as a new interaction, with its own id and token. */
function command(prompt: string, where: { channel?: string; user?: string } = {}) {
  seq++;
  const channel = where.channel ?? '900000000000000002';
  return discordCommand({
    id: `13294812345678${String(seq).padStart(5, '0')}`,
    token: `interaction-token-${seq}`,
    channel_id: channel,
    channel: { id: channel, type: 0 },
    member: { user: { id: where.user ?? '800000000000000003', username: 'ada' }, roles: [] },
    data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: prompt }] },
  });
}

/** Sends `body` as Discord does, signed with `privateKey` (the application's own by default). */
function send(body: unknown, hook = 'dc', privateKey = keys.privateKey) {
  const rawBody = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  return harness.post(hook, rawBody, discordSignedHeaders(privateKey, Buffer.from(rawBody), timestamp));
}

/** The calls answering one interaction, in the order they were made. */
const callsFor = (token: string): RecordedRequest[] =>
  harness.platform.requests.filter((r) => r.url.startsWith(`${WEBHOOKS}${token}`));
const contents = (requests: RecordedRequest[]) => requests.map((r) => (r.json as { content: string }).content);

describe('Discord hooks', () => {
  it('answers 401 for an interaction signed with another key', async () => {
    const res = await send(command('forged'), 'dc', discordKeys().privateKey);
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
    expect((await harness.channel('dc')).messages_in).toBe(0);
  });

  it('answers PING with PONG', async () => {
    const res = await send(discordPing({ application_id: APPLICATION_ID }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ type: 1 });
  });

  it('defers a command at once, then edits the original response with the reply', async () => {
    const release = harness.holdModel();
    const body = command('What is a monad?');
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ type: 5 });
    expect(callsFor(body.token)).toHaveLength(0); // deferred before the model has answered

    release();
    const [edit] = await eventually(() => {
      const found = callsFor(body.token);
      expect(found).toHaveLength(1);
      return found;
    }, 200);
    expect(edit?.method).toBe('PATCH');
    expect(edit?.url).toBe(`${WEBHOOKS}${body.token}/messages/@original`);
    expect(edit?.json).toMatchObject({ content: 'reply to: What is a monad? (history: 0)' });
  });

  it('sends a reply over 2000 characters as the edited original plus follow-ups, in order', async () => {
    const body = command('tell me everything');
    await send(body);
    const calls = await eventually(() => {
      const found = callsFor(body.token);
      expect(contents(found).join(' ')).toBe(LONG_REPLY); // the splitter drops the space it cuts at
      return found;
    }, 200);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `PATCH ${WEBHOOKS}${body.token}/messages/@original`,
      ...calls.slice(1).map(() => `POST ${WEBHOOKS}${body.token}`),
    ]);
    for (const content of contents(calls)) expect(content.length).toBeLessThanOrEqual(DISCORD_LIMIT);
  });

  it('answers the same interaction once', async () => {
    const body = command('only once', { user: '800000000000000010' });
    expect(await (await send(body)).json()).toEqual({ type: 5 });
    expect((await send(body)).status).toBe(200);
    // A later command of the same user waits for every earlier one: had the repeat been queued, it would show history 4.
    const later = command('and then?', { user: '800000000000000010' });
    await send(later);
    await eventually(() => expect(contents(callsFor(later.token))).toEqual(['reply to: and then? (history: 2)']), 200);
    expect(contents(callsFor(body.token))).toEqual(['reply to: only once (history: 0)']);
    expect(harness.modelCalls('only once')).toBe(1);
  });

  it('remembers a conversation per channel and user', async () => {
    const [a, b, c, d] = [
      command('first', { channel: '900000000000000020', user: '800000000000000021' }),
      command('second', { channel: '900000000000000020', user: '800000000000000021' }),
      command('another user', { channel: '900000000000000020', user: '800000000000000022' }),
      command('another channel', { channel: '900000000000000023', user: '800000000000000021' }),
    ];
    for (const body of [a, b, c, d]) await send(body);
    const replies = await eventually(() => {
      const found = [a, b, c, d].map((body) => contents(callsFor(body.token)));
      expect(found.every((sent) => sent.length === 1)).toBe(true);
      return found.flat();
    }, 200);
    expect(replies).toEqual([
      'reply to: first (history: 0)',
      'reply to: second (history: 2)',
      'reply to: another user (history: 0)',
      'reply to: another channel (history: 0)',
    ]);
  });

  it('lists the hook in /status with its type, counting answered messages in and out', async () => {
    expect(await harness.channel('counted')).toMatchObject({ type: 'discord', messages_in: 0, messages_out: 0 });
    const repeated = command('count one');
    await send(repeated, 'counted');
    await send(repeated, 'counted');
    await send(discordPing({ application_id: APPLICATION_ID }), 'counted');
    await send(command('count two'), 'counted');
    // The API counts messages in and the worker messages out, each in batches of its own (written
    // about once a second): either may be written first.
    await eventually(
      async () =>
        expect(await harness.channel('counted')).toMatchObject({
          name: 'counted',
          type: 'discord',
          connected: true,
          messages_in: 2,
          messages_out: 2,
          last_error: null,
        }),
      200,
    );
  });
});
