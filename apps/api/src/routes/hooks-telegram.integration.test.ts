import type { ServerResponse } from 'node:http';
import {
  type RecordedRequest,
  sendJson,
  TELEGRAM_SECRET_HEADER,
  telegramSentMessage,
  telegramTopicMessage,
  telegramUpdate,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const BOT_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const SECRET = 'tg-webhook-secret_0123';
const SEND_PATH = `/bot${BOT_TOKEN}/sendMessage`;
const TELEGRAM_LIMIT = 4096;

/** Nine paragraphs of about a thousand characters: a reply Telegram cannot take in one message. */
const LONG_REPLY = Array.from({ length: 9 }, (_, i) => `Paragraph ${i + 1}. ${'lorem ipsum '.repeat(82).trim()}`).join('\n\n');

let messageIds = 1000;
/** api.telegram.org as the Bot API documents it: `{ok:true, result: Message}`, or 404 for a method or token it does not know. */
const botApi = (req: RecordedRequest, res: ServerResponse) => {
  if (req.method !== 'POST' || req.url !== SEND_PATH) {
    return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
  }
  const { chat_id, text } = req.json as { chat_id: number; text: string };
  sendJson(res, 200, telegramSentMessage(chat_id, text, ++messageIds));
};

let harness: HookHarness;

beforeAll(async () => {
  // Whole replies (stream: false): streamed ones are hooks-live-*.integration.test.ts's.
  const hook = (apiUrl: string) => ({ type: 'telegram', botToken: BOT_TOKEN, secretToken: SECRET, apiUrl, stream: false });
  harness = await startHookHarness({
    platform: botApi,
    hooks: (url) => ({ tg: hook(url), counted: hook(url) }),
    replies: { 'tell me everything': LONG_REPLY },
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** An update of its own: a fresh update_id and message_id, in `chatId`. */
function update(text: string, chatId = -100_987_654_321) {
  seq++;
  return telegramUpdate({ text, message_id: seq, chat: { id: chatId, type: 'supergroup' } }, { update_id: 500_000 + seq });
}

/** Sends `body` as Telegram does, with the webhook's secret token unless `headers` says otherwise. */
function send(body: unknown, options: { hook?: string; headers?: Record<string, string> } = {}) {
  return harness.post(options.hook ?? 'tg', JSON.stringify(body), options.headers ?? { [TELEGRAM_SECRET_HEADER]: SECRET });
}

type SendMessage = { chat_id: number; text: string; reply_parameters?: { message_id: number } };
const sends = (): RecordedRequest[] => harness.platform.requests.filter((r) => r.url === SEND_PATH);
const sentTo = (chatId: number) => sends().filter((r) => (r.json as SendMessage).chat_id === chatId);
const texts = (requests: RecordedRequest[]) => requests.map((r) => (r.json as SendMessage).text);

describe('Telegram hooks', () => {
  it('answers 401 when the secret token header is missing or wrong', async () => {
    const body = update('let me in');
    for (const headers of [{}, { [TELEGRAM_SECRET_HEADER]: 'not-the-secret' }] as Record<string, string>[]) {
      const res = await send(body, { headers });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    }
    expect((await harness.channel('tg')).messages_in).toBe(0);
  });

  it('acknowledges an update at once and answers with sendMessage as a reply to the message', async () => {
    const release = harness.holdModel();
    const chatId = -1001;
    const body = update('What is a monad?', chatId);
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(sentTo(chatId)).toHaveLength(0); // acknowledged before the model has answered

    release();
    const [sent] = await eventually(() => {
      const found = sentTo(chatId);
      expect(found).toHaveLength(1);
      return found;
    }, 200);
    expect(sent?.method).toBe('POST');
    expect(sent?.json).toEqual({
      chat_id: chatId,
      text: 'reply to: What is a monad? (history: 0)',
      parse_mode: 'HTML',
      reply_parameters: expect.objectContaining({ message_id: body.message.message_id }),
    });
  });

  it('answers the same update_id once', async () => {
    const chatId = -1002;
    const body = update('only once', chatId);
    expect((await send(body)).status).toBe(200);
    expect((await send(body)).status).toBe(200);
    // A later message in the chat waits for every earlier one: had the repeat been queued, it would show history 4.
    await send(update('and then?', chatId));
    await eventually(
      () => expect(texts(sentTo(chatId))).toEqual(['reply to: only once (history: 0)', 'reply to: and then? (history: 2)']),
      200,
    );
    expect(harness.modelCalls('only once')).toBe(1);
  });

  it('sends a reply longer than 4096 characters as several messages, in order', async () => {
    const chatId = -1003;
    const body = update('tell me everything', chatId);
    await send(body);
    const parts = await eventually(() => {
      const found = texts(sentTo(chatId));
      expect(found.join('\n\n')).toBe(LONG_REPLY); // the splitter drops the paragraph break it cuts at
      return found;
    }, 200);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(TELEGRAM_LIMIT);
    // Only the first part answers the user's message; the rest follow it.
    const [first, ...rest] = sentTo(chatId).map((r) => r.json as SendMessage);
    expect(first?.reply_parameters?.message_id).toBe(body.message.message_id);
    for (const part of rest) expect(part.reply_parameters).toBeUndefined();
  });

  it('remembers the conversation per chat', async () => {
    await send(update('first here', -1004));
    await send(update('second here', -1004));
    await send(update('first elsewhere', -1005));
    await eventually(
      () => expect(texts(sentTo(-1004))).toEqual(['reply to: first here (history: 0)', 'reply to: second here (history: 2)']),
      200,
    );
    await eventually(() => expect(texts(sentTo(-1005))).toEqual(['reply to: first elsewhere (history: 0)']), 200);
  });

  it('remembers each forum topic apart, while General and replies in a group without topics share the chat', async () => {
    const forum = -1016;
    const inTopic = (text: string, topic?: number) => {
      seq++;
      const fields = { text, message_id: seq, chat: { id: forum, type: 'supergroup', is_forum: true } };
      // General's messages carry no topic (https://core.telegram.org/bots/api#message: is_topic_message).
      const message = topic === undefined ? telegramUpdate(fields).message : telegramTopicMessage(topic, fields);
      return telegramUpdate(message, { update_id: 500_000 + seq });
    };
    await send(inTopic('ten first', 10));
    await send(inTopic('eleven first', 11));
    await send(inTopic('ten again', 10));
    await send(inTopic('general first'));
    await send(inTopic('general again'));
    const inThread = (topic: number | undefined) =>
      texts(sentTo(forum).filter((r) => (r.json as { message_thread_id?: number }).message_thread_id === topic));
    await eventually(() => {
      expect(inThread(10)).toEqual(['reply to: ten first (history: 0)', 'reply to: ten again (history: 2)']);
      expect(inThread(11)).toEqual(['reply to: eleven first (history: 0)']);
      expect(inThread(undefined)).toEqual(['reply to: general first (history: 0)', 'reply to: general again (history: 2)']);
      // All five replies go to one chat, which Telegram's limit paces at about one a second.
    }, 500);

    // In a group without topics a reply carries the thread it answers as message_thread_id, no topic.
    await send(update('plain first', -1017));
    seq++;
    await send(
      telegramUpdate(
        { text: 'a reply', message_id: seq, message_thread_id: seq - 1, chat: { id: -1017, type: 'supergroup' } },
        { update_id: 500_000 + seq },
      ),
    );
    await eventually(
      () => expect(texts(sentTo(-1017))).toEqual(['reply to: plain first (history: 0)', 'reply to: a reply (history: 2)']),
      200,
    );
  });

  it('retries a 429 with parameters.retry_after and delivers the reply once', async () => {
    const chatId = -1006;
    let refused = 0;
    harness.platform.handle((req, res) => {
      if ((req.json as SendMessage).chat_id === chatId && refused++ === 0) {
        return sendJson(res, 429, {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 1',
          parameters: { retry_after: 1 },
        });
      }
      botApi(req, res);
    });
    await send(update('slow down', chatId));
    await eventually(() => expect(sentTo(chatId)).toHaveLength(2), 300);
    // The retry sends the reply generated the first time, without asking the model again.
    expect(texts(sentTo(chatId))).toEqual(['reply to: slow down (history: 0)', 'reply to: slow down (history: 0)']);
    expect(harness.modelCalls('slow down')).toBe(1);
  });

  it('waits out retry_after before sending again', async () => {
    // Telegram's flood control refuses every call until retry_after has passed, so a retry sooner only spends an attempt.
    const chatId = -1007;
    let blockedUntil = 0;
    let delivered = false;
    harness.platform.handle((req, res) => {
      if ((req.json as SendMessage).chat_id !== chatId) return botApi(req, res);
      blockedUntil ||= Date.now() + 1000;
      const wait = Math.ceil((blockedUntil - Date.now()) / 1000);
      if (wait > 0) {
        const description = `Too Many Requests: retry after ${wait}`;
        return sendJson(res, 429, { ok: false, error_code: 429, description, parameters: { retry_after: wait } });
      }
      delivered = true;
      botApi(req, res);
    });
    const { failed: failedBefore } = await harness.queue();
    await send(update('flood', chatId));
    const failedAfter = await eventually(async () => {
      const { failed } = await harness.queue();
      if (!delivered && failed === failedBefore) throw new Error('neither delivered nor failed yet');
      return failed;
    }, 300);
    expect(failedAfter - failedBefore, `every attempt came too soon: ${sentTo(chatId).length} calls, all refused`).toBe(0);
    expect(delivered).toBe(true);
  });

  it('lists the hook in /status with its type, counting answered messages in and out', async () => {
    expect(await harness.channel('counted')).toMatchObject({ type: 'telegram', messages_in: 0, messages_out: 0 });
    const repeated = update('count one', -1008);
    await send(repeated, { hook: 'counted' });
    await send(repeated, { hook: 'counted' });
    const edit = {
      update_id: 600_000,
      edited_message: { ...repeated.message, text: 'count one, edited', edit_date: 1_736_942_500 },
    };
    expect(await (await send(edit, { hook: 'counted' })).json()).toEqual({ ok: true });
    await send(update('count two', -1008), { hook: 'counted' });
    // The API counts messages in and the worker messages out, each in batches of its own: either may be written first.
    await eventually(
      async () =>
        expect(await harness.channel('counted')).toMatchObject({
          name: 'counted',
          type: 'telegram',
          connected: true,
          messages_in: 2,
          messages_out: 2,
          last_error: null,
        }),
      200,
    );
  });
});
