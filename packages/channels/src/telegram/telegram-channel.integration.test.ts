import type { InboundMessage } from '@switchboard/protocol';
import { jsonRequest, type LocalServer, sendJson, startLocalServer, telegramUpdate } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { telegram as telegramChannel } from './telegram-channel.js';

const BOT_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const SECRET = 'tg-webhook-secret_0123';
const META = { jobId: 'job_abc123', hook: 'tg', model: 'local/echo', created: 1_736_942_400 };
const MESSAGE: InboundMessage = {
  action: 'chat',
  text: 'What is a monad?',
  from: '111222333',
  conversation: '-100987654321',
  dedupeKey: '987654321',
  replyTo: { chat_id: -100_987_654_321, message_id: 42 },
};

let telegram: LocalServer | undefined;
let adapter: Hook | undefined;

afterEach(async () => {
  await adapter?.close();
  await telegram?.close();
  adapter = telegram = undefined;
});

/** A stand-in for api.telegram.org speaking the Bot API: `{ok:true,result}` or `{ok:false,error_code,description}`. */
async function startTelegram(status: number, body: unknown, headers: Record<string, string> = {}) {
  telegram = await startLocalServer((_req, res) => sendJson(res, status, body, headers));
  adapter = createHook('tg', {
    type: 'telegram' as const,
    // Whole replies; the streamed side is telegram-live.integration.test.ts's.
    ...telegramChannel.config.parse({ botToken: BOT_TOKEN, secretToken: SECRET, apiUrl: telegram.url, stream: false }),
  });
  return { telegram, adapter };
}

const sent = {
  ok: true,
  result: {
    message_id: 43,
    from: { id: 110201543, is_bot: true, first_name: 'Switchboard' },
    chat: { id: -100_987_654_321, type: 'supergroup' },
    date: 1_736_942_401,
    text: 'Hi',
  },
};

describe('TelegramAdapter', () => {
  it('checks the secret token, then parses the update', async () => {
    const { adapter } = await startTelegram(200, sent);
    const inbound = await adapter.receive(jsonRequest(telegramUpdate(), { 'x-telegram-bot-api-secret-token': SECRET }));
    expect(inbound.kind === 'message' && inbound.message.dedupeKey).toBe('987654321');
    await expect(adapter.receive(jsonRequest(telegramUpdate(), { 'x-telegram-bot-api-secret-token': 'nope' }))).rejects.toThrow(
      /secret token/,
    );
  });

  it('sends the first part as a reply to the user message', async () => {
    const { telegram, adapter } = await startTelegram(200, sent);
    await adapter.deliver(MESSAGE, 'A monad is…', 0, META);
    const [request] = telegram.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json).toEqual({
      chat_id: -100_987_654_321,
      text: 'A monad is…',
      parse_mode: 'HTML',
      reply_parameters: { message_id: 42, allow_sending_without_reply: true },
    });
  });

  it('sends later parts without reply_parameters', async () => {
    const { telegram, adapter } = await startTelegram(200, sent);
    await adapter.deliver(MESSAGE, '…and more', 1, META);
    expect(telegram.requests[0]?.json).toEqual({ chat_id: -100_987_654_321, text: '…and more', parse_mode: 'HTML' });
  });

  it('splits at 4096 characters', async () => {
    const { adapter } = await startTelegram(200, sent);
    const pieces = adapter.split('a'.repeat(5000));
    // Markdown-aware: room is kept in each piece to close and reopen a code block cut in two.
    expect(pieces.map((piece) => piece.length)).toEqual([4056, 944]);
  });

  it('retries a 429 after parameters.retry_after', async () => {
    const { adapter } = await startTelegram(429, {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 3',
      parameters: { retry_after: 3 },
    });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(true);
    expect(failure.options.retryAfterMs).toBe(3000);
  });

  it('flags 401 as refused credentials, naming the call but never the token', async () => {
    const { adapter } = await startTelegram(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBe(true);
    expect(failure.message).toBe("Hook 'tg': Telegram sendMessage failed with 401: Unauthorized");
  });

  it('fails a 403 (bot blocked by the user) without flagging the credentials', async () => {
    const { adapter } = await startTelegram(403, {
      ok: false,
      error_code: 403,
      description: 'Forbidden: bot was blocked by the user',
    });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBeUndefined();
  });

  it('gives up on other client errors', async () => {
    const { adapter } = await startTelegram(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBeUndefined();
    expect(failure.message).toContain('Bad Request: chat not found');
  });

  it('retries a 5xx, even one whose body is not JSON', async () => {
    const { telegram, adapter } = await startTelegram(502, {});
    telegram.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
    });
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(true);
  });

  it('keeps the bot token out of errors, even when the server echoes the URL', async () => {
    const { telegram, adapter } = await startTelegram(404, {});
    telegram.handle((req, res) => sendJson(res, 404, { ok: false, error_code: 404, description: `Not Found: ${req.url}` }));
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.message).not.toContain(BOT_TOKEN);
    expect(failure.message).not.toContain(BOT_TOKEN.split(':')[1]);
  });

  it('keeps the bot token out of errors when Telegram cannot be reached', async () => {
    const { telegram, adapter } = await startTelegram(200, sent);
    await telegram.close();
    const failure = await deliveryErrorFrom(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(true);
    expect(failure.message).not.toContain(BOT_TOKEN);
  });
});
