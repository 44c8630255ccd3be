import type { InboundMessage } from '@switchboard/protocol';
import { discordCommand, discordKeys, discordRequest, type LocalServer, sendJson, startLocalServer } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { discord as discordChannel } from './discord-channel.js';

const APPLICATION_ID = '1100000000000000001';
const INTERACTION_TOKEN = 'aW50ZXJhY3Rpb246MTMyOTQ4MTIzNDU2Nzg5MDEyMzpzZWNyZXQ';
const META = { jobId: 'job_abc123', hook: 'dc', model: 'local/echo', created: 1_736_942_400 };
const MESSAGE: InboundMessage = {
  action: 'chat',
  text: 'What is a monad?',
  from: '800000000000000003',
  conversation: '900000000000000002:800000000000000003',
  dedupeKey: '1329481234567890123',
  replyTo: { token: INTERACTION_TOKEN },
};
const keys = discordKeys();

let discord: LocalServer | undefined;
let adapter: Hook | undefined;

afterEach(async () => {
  await adapter?.close();
  await discord?.close();
  adapter = discord = undefined;
});

/** A stand-in for discord.com/api/v10: message objects on success, `{message, code}` errors. */
async function startDiscord(status: number, body: unknown, headers: Record<string, string> = {}) {
  discord = await startLocalServer((_req, res) => sendJson(res, status, body, headers));
  adapter = createHook('dc', {
    type: 'discord' as const,
    ...discordChannel.config.parse({
      publicKey: keys.publicKeyHex,
      applicationId: APPLICATION_ID,
      apiUrl: `${discord.url}/api/v10`,
      // Whole replies; the streamed side is discord-live.integration.test.ts's.
      stream: false,
    }),
  });
  return { discord, adapter };
}

const messageObject = {
  id: '1329481299999999999',
  type: 20,
  content: 'A monad is…',
  channel_id: '900000000000000002',
  author: { id: APPLICATION_ID, username: 'Switchboard', bot: true },
  attachments: [],
  embeds: [],
  mentions: [],
  timestamp: '2025-01-15T12:00:01.000000+00:00',
  edited_timestamp: null,
  flags: 0,
};

describe('DiscordAdapter', () => {
  it('verifies and answers a signed PING with PONG', async () => {
    const { adapter } = await startDiscord(200, messageObject);
    const inbound = await adapter.receive(
      discordRequest(keys.privateKey, { id: '1', application_id: APPLICATION_ID, type: 1, token: 't', version: 1 }),
    );
    expect(inbound).toEqual({ kind: 'answer', answer: { status: 200, body: { type: 1 } } });
  });

  it('refuses an unsigned command before reading it', async () => {
    const { adapter } = await startDiscord(200, messageObject);
    const request = discordRequest(discordKeys().privateKey, discordCommand());
    await expect(adapter.receive(request)).rejects.toThrow(/signature/);
  });

  it('replaces the deferred response with the first part', async () => {
    const { discord, adapter } = await startDiscord(200, messageObject);
    await adapter.deliver(MESSAGE, 'A monad is…', 0, META);
    const [request] = discord.requests;
    expect(request?.method).toBe('PATCH');
    expect(request?.url).toBe(`/api/v10/webhooks/${APPLICATION_ID}/${INTERACTION_TOKEN}/messages/@original`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json).toEqual({ content: 'A monad is…', allowed_mentions: { parse: [] } });
  });

  it('posts later parts as follow-up messages', async () => {
    const { discord, adapter } = await startDiscord(200, messageObject);
    await adapter.deliver(MESSAGE, '…and more', 1, META);
    const [request] = discord.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/api/v10/webhooks/${APPLICATION_ID}/${INTERACTION_TOKEN}`);
    expect(request?.json).toEqual({ content: '…and more', allowed_mentions: { parse: [] } });
  });

  it('splits at 2000 characters', async () => {
    const { adapter } = await startDiscord(200, messageObject);
    // Markdown-aware: room is kept in each piece to close and reopen a code block cut in two.
    expect(adapter.split('b'.repeat(4001)).map((piece) => piece.length)).toEqual([1960, 1960, 81]);
  });

  it('retries a 429 after the body retry_after, in milliseconds', async () => {
    const { adapter } = await startDiscord(
      429,
      { message: 'You are being rate limited.', retry_after: 1.336, global: false },
      { 'retry-after': '2' },
    );
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(true);
    expect(failure.options.retryAfterMs).toBe(1336);
  });

  it('flags an expired interaction token (401) as refused, without naming the token', async () => {
    const { adapter } = await startDiscord(401, { message: 'Invalid Webhook Token', code: 50027 });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBe(true);
    expect(failure.message).toContain('Invalid Webhook Token');
    expect(failure.message).not.toContain(INTERACTION_TOKEN);
  });

  it('gives up on other client errors, even when the answer echoes the URL', async () => {
    const { discord, adapter } = await startDiscord(404, {});
    discord.handle((req, res) => sendJson(res, 404, { message: `Unknown Webhook at ${req.url}`, code: 10015 }));
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 1, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBeUndefined();
    expect(failure.message).toContain('Unknown Webhook');
    expect(failure.message).not.toContain(INTERACTION_TOKEN);
  });

  it('retries a 5xx', async () => {
    const { adapter } = await startDiscord(500, { message: '500: Internal Server Error', code: 0 });
    expect((await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META))).retryable).toBe(true);
  });

  it('refuses a job without an interaction token, without calling Discord', async () => {
    const { discord, adapter } = await startDiscord(200, messageObject);
    const failure = await deliveryErrorFrom(adapter.deliver({ ...MESSAGE, replyTo: {} }, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(discord.requests).toHaveLength(0);
  });
});
