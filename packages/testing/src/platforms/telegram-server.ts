import type { ServerResponse } from 'node:http';
import { type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { FakeRateLimit, type FakeRule } from './fake-rate-limit.js';
import { EntityError, visibleTelegramHtml } from './telegram-html.js';

/**
 * A local Telegram Bot API that enforces what the documentation says: the bot token in the path,
 * 4096 characters per message after entity parsing, HTML parse mode checked as Telegram does,
 * edits of unknown messages and edits that change nothing refused, drafts only in private chats,
 * and the rate limits — one message a second in a chat, twenty a minute in a group (negative chat
 * ids) — answered with 429 and `parameters.retry_after`. sendMessage and editMessageText count
 * towards the limits; drafts, chat actions and deletes do not.
 */
export interface FakeTelegramOptions {
  botToken: string;
  /** Scaled down in tests. @defaultValue Telegram's: chat 1/1 s, group 20/60 s */
  limits?: { chat: FakeRule; group: FakeRule };
  /** false: sendMessageDraft is refused, as for a bot without topics. @defaultValue true */
  drafts?: boolean;
  /** true: every HTML text is refused with "can't parse entities". @defaultValue false */
  refuseHtml?: boolean;
}

export interface TelegramMessage {
  message_id: number;
  /** What the chat shows (tags stripped, entities decoded). */
  text: string;
  /** The text as sent (HTML when parse_mode was HTML). */
  sent: string;
  parse_mode?: string;
}

export interface TelegramCall {
  method: string;
  body: Record<string, unknown>;
  /** When it arrived, epoch ms (sub-ms). */
  at: number;
  /** The HTTP status the fake answered. */
  status: number;
}

export interface FakeTelegram {
  url: string;
  server: LocalServer;
  calls: TelegramCall[];
  /** The messages a chat shows now, oldest first. */
  chat(chatId: number): TelegramMessage[];
  /** Calls answered 429. */
  readonly refused: number;
  close(): Promise<void>;
}

const LIMIT = 4096;

export async function startFakeTelegram(options: FakeTelegramOptions): Promise<FakeTelegram> {
  const limits = options.limits ?? { chat: { count: 1, perMs: 1000 }, group: { count: 20, perMs: 60_000 } };
  const rate = new FakeRateLimit();
  const chats = new Map<number, TelegramMessage[]>();
  const calls: TelegramCall[] = [];
  let nextId = 100;

  const answer = (res: ServerResponse, call: TelegramCall, status: number, body: Record<string, unknown>) => {
    call.status = status;
    sendJson(res, status, status === 200 ? { ok: true, ...body } : { ok: false, error_code: status, ...body });
  };

  const server = await startLocalServer((req: RecordedRequest, res) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url);
    const body = (req.json ?? {}) as Record<string, unknown>;
    const call: TelegramCall = { method: match?.[2] ?? req.url, body, at: performance.timeOrigin + performance.now(), status: 0 };
    calls.push(call);
    if (!match || match[1] !== options.botToken) return answer(res, call, 401, { description: 'Unauthorized' });
    const chatId = Number(body.chat_id);
    const messages = chats.get(chatId) ?? [];
    chats.set(chatId, messages);

    let shown: { text: string; sent: string; parse_mode?: string } | undefined;
    if (['sendMessage', 'editMessageText', 'sendMessageDraft'].includes(call.method)) {
      const sent = String(body.text ?? '');
      const parseMode = typeof body.parse_mode === 'string' ? body.parse_mode : undefined;
      let text = sent;
      try {
        if (parseMode === 'HTML' && options.refuseHtml) throw new EntityError('Unsupported start tag at byte offset 0');
        if (parseMode === 'HTML') text = visibleTelegramHtml(sent);
      } catch (err) {
        return answer(res, call, 400, { description: `Bad Request: can't parse entities: ${(err as Error).message}` });
      }
      if (text.trim() === '' && call.method !== 'sendMessageDraft') {
        return answer(res, call, 400, { description: 'Bad Request: message text is empty' });
      }
      if (text.length > LIMIT) return answer(res, call, 400, { description: 'Bad Request: message is too long' });
      shown = { text, sent, ...(parseMode ? { parse_mode: parseMode } : {}) };
    }
    if (call.method === 'sendMessage' || call.method === 'editMessageText') {
      const waitMs = rate.check(String(chatId), chatId < 0 ? [limits.chat, limits.group] : [limits.chat]);
      if (waitMs > 0) {
        const seconds = waitMs >= 1000 ? Math.ceil(waitMs / 1000) : Math.ceil(waitMs) / 1000;
        return answer(res, call, 429, {
          description: `Too Many Requests: retry after ${seconds}`,
          parameters: { retry_after: seconds },
        });
      }
    }

    switch (call.method) {
      case 'sendMessage': {
        const message = { message_id: ++nextId, ...shown! };
        messages.push(message);
        return answer(res, call, 200, {
          result: { message_id: message.message_id, chat: { id: chatId }, date: 1, text: message.text },
        });
      }
      case 'editMessageText': {
        const message = messages.find((m) => m.message_id === Number(body.message_id));
        if (!message) return answer(res, call, 400, { description: 'Bad Request: message to edit not found' });
        if (message.sent === shown!.sent && message.parse_mode === shown!.parse_mode) {
          return answer(res, call, 400, {
            description:
              'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          });
        }
        Object.assign(message, shown);
        return answer(res, call, 200, {
          result: { message_id: message.message_id, chat: { id: chatId }, date: 1, text: message.text },
        });
      }
      case 'sendMessageDraft':
        if (options.drafts === false)
          return answer(res, call, 400, { description: 'Bad Request: method is not available for this bot' });
        if (chatId <= 0) return answer(res, call, 400, { description: 'Bad Request: drafts can be sent only to private chats' });
        if (!Number.isInteger(body.draft_id) || body.draft_id === 0)
          return answer(res, call, 400, { description: 'Bad Request: invalid draft_id' });
        return answer(res, call, 200, { result: true });
      case 'sendChatAction':
        return answer(res, call, 200, { result: true });
      case 'deleteMessage': {
        const index = messages.findIndex((m) => m.message_id === Number(body.message_id));
        if (index < 0) return answer(res, call, 400, { description: 'Bad Request: message to delete not found' });
        messages.splice(index, 1);
        return answer(res, call, 200, { result: true });
      }
      default:
        return answer(res, call, 404, { description: 'Not Found' });
    }
  });
  return {
    url: server.url,
    server,
    calls,
    chat: (chatId) => [...(chats.get(chatId) ?? [])],
    get refused() {
      return rate.refused;
    },
    close: () => server.close(),
  };
}
