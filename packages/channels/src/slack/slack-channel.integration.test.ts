import type { InboundMessage } from '@switchboard/protocol';
import { type LocalServer, sendJson, slackMessageEvent, slackRequest, startLocalServer } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { slack as slackChannel } from './slack-channel.js';

const BOT_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const META = { jobId: 'job_abc123', hook: 'team', model: 'local/echo', created: 1_736_942_400 };
const MESSAGE: InboundMessage = {
  action: 'chat',
  text: 'What is a monad?',
  from: 'U0456',
  conversation: 'C0123:1736942400.000100',
  dedupeKey: 'C0123:1736942400.000100',
  replyTo: { channel: 'C0123', thread_ts: '1736942400.000100', team: 'T0001' },
};

let slack: LocalServer | undefined;
let adapter: Hook | undefined;

afterEach(async () => {
  await adapter?.close();
  await slack?.close();
  adapter = slack = undefined;
});

/** A stand-in for slack.com/api answering as the Web API documents: HTTP 200 and `{ok, …}`. */
async function startSlack(answer: (reply: (status: number, body: unknown, headers?: Record<string, string>) => void) => void) {
  slack = await startLocalServer((_req, res) => answer((status, body, headers) => sendJson(res, status, body, headers)));
  adapter = createHook('team', {
    type: 'slack' as const,
    // Whole replies; the streamed side is slack-live.integration.test.ts's.
    ...slackChannel.config.parse({
      signingSecret: SIGNING_SECRET,
      botToken: BOT_TOKEN,
      apiUrl: `${slack.url}/api`,
      stream: false,
    }),
  });
  return { slack, adapter };
}

const posted = { ok: true, channel: 'C0123', ts: '1736942401.000200', message: { type: 'message', text: 'Hi', bot_id: 'B0123' } };

describe('SlackAdapter', () => {
  it('verifies and parses a signed event end to end', async () => {
    const { adapter } = await startSlack((reply) => reply(200, posted));
    const inbound = await adapter.receive(slackRequest(SIGNING_SECRET, slackMessageEvent()));
    expect(inbound.kind === 'message' && inbound.message.replyTo).toEqual(MESSAGE.replyTo);
  });

  it('posts the part with chat.postMessage into the thread, with the bot token', async () => {
    const { slack, adapter } = await startSlack((reply) => reply(200, posted));
    await adapter.deliver(MESSAGE, 'A monad is a monoid in the category of endofunctors.', 0, META);
    expect(slack.requests).toHaveLength(1);
    const [request] = slack.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/chat.postMessage');
    expect(request?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request?.json).toEqual({
      channel: 'C0123',
      text: 'A monad is a monoid in the category of endofunctors.',
      thread_ts: '1736942400.000100',
    });
  });

  it('splits at 40,000 characters', async () => {
    const { adapter } = await startSlack((reply) => reply(200, posted));
    const pieces = adapter.split('word '.repeat(10_000));
    expect(pieces).toHaveLength(2);
    expect(pieces.every((piece) => piece.length <= 40_000)).toBe(true);
  });

  it('flags invalid_auth and the other credential errors as refused credentials', async () => {
    let error = 'invalid_auth';
    const { adapter } = await startSlack((reply) => reply(200, { ok: false, error }));
    for (error of ['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'missing_scope']) {
      const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
      expect(failure.retryable).toBe(false);
      expect(failure.options.credentialsRefused).toBe(true);
      expect(failure.message).toContain(error);
      expect(failure.message).not.toContain(BOT_TOKEN);
    }
  });

  it('retries ratelimited answers and HTTP 429, keeping Retry-After', async () => {
    const { slack, adapter } = await startSlack((reply) =>
      reply(200, { ok: false, error: 'ratelimited' }, { 'retry-after': '2' }),
    );
    const inBody = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(inBody.retryable).toBe(true);
    expect(inBody.options.retryAfterMs).toBe(2000);
    slack.handle((_req, res) => sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '30' }));
    const byStatus = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(byStatus.retryable).toBe(true);
    expect(byStatus.options.retryAfterMs).toBe(30_000);
  });

  it('gives up on other Slack errors', async () => {
    const { adapter } = await startSlack((reply) => reply(200, { ok: false, error: 'channel_not_found' }));
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBeUndefined();
    expect(failure.message).toContain('channel_not_found');
  });

  it('keeps the bot token out of the error even when a proxy echoes it', async () => {
    const { slack, adapter } = await startSlack((reply) => reply(200, posted));
    slack.handle((req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`bad header: ${req.headers.authorization}`);
    });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.options.credentialsRefused).toBe(true);
    expect(failure.message).toContain('[redacted]');
    expect(failure.message).not.toContain(BOT_TOKEN);
  });

  it('retries a 5xx from Slack', async () => {
    const { adapter } = await startSlack((reply) => reply(503, { ok: false, error: 'service_unavailable' }));
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(true);
  });

  it('does not retry a 200 answer it cannot read, since the message may have been posted', async () => {
    const { slack, adapter } = await startSlack((reply) => reply(200, posted));
    slack.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>');
    });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
  });

  it('refuses a job whose replyTo is not a Slack thread, without calling Slack', async () => {
    const { slack, adapter } = await startSlack((reply) => reply(200, posted));
    const failure = await deliveryErrorFrom(adapter.deliver({ ...MESSAGE, replyTo: { chat_id: 1 } }, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(slack.requests).toHaveLength(0);
  });
});
