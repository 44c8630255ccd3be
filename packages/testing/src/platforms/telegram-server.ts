import type { ServerResponse } from 'node:http';
import type {
  ApiError,
  ApiSuccess,
  CallbackQuery,
  File,
  InlineKeyboardMarkup,
  Message,
  MessageEntity,
  Update,
  User,
  UserFromGetMe,
} from '@grammyjs/types';
import { type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { FakeRateLimit, type FakeRule } from './fake-rate-limit.js';
import { telegramGetMe, telegramSentMessage } from './telegram.js';
import { EntityError, parseTelegramHtml } from './telegram-html.js';

/**
 * A local Telegram Bot API that enforces what the documentation says: the bot token in the path,
 * 4096 characters per message after entity parsing, HTML parse mode checked as Telegram does,
 * edits of unknown messages and edits that change nothing refused, drafts only in private chats,
 * and the rate limits — one message a second in a chat, twenty a minute in a group (negative chat
 * ids) — answered with 429 and `parameters.retry_after`. sendMessage and editMessageText count
 * towards the limits; drafts, chat actions and deletes do not. Parameters come as the Bot API
 * takes them (https://core.telegram.org/bots/api#making-requests): a query string, a form
 * (`application/x-www-form-urlencoded`, objects such as `reply_parameters` as JSON strings) or
 * JSON; method names are case-insensitive. Answers are `@grammyjs/types`' `ApiResponse`: the
 * whole `Message` on success, `{ok: false, error_code, description, parameters?}` otherwise.
 * Forum topics: a message goes to the topic its `message_thread_id` names, or, as a reply, to
 * the topic of the message it answers (`userWrote` tells the fake where a user's message is).
 * Inline keyboards (https://core.telegram.org/bots/api#inlinekeyboardmarkup): a message keeps the
 * `reply_markup` it was sent with (callback_data 1–64 bytes, else `BUTTON_DATA_INVALID`) until an
 * edit gives another (an empty `inline_keyboard` removes the buttons; whether an edit without
 * `reply_markup` keeps them is not documented, and the fake keeps them); `pressButton` makes the
 * `callback_query` update Telegram would send, and answerCallbackQuery takes only a query it issued
 * (text up to 200 characters), once.
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
  /** The formatting Telegram made of the HTML (what the sent Message reports). */
  entities?: MessageEntity[];
  /** The forum topic it is in; absent in the General topic and in chats without topics. */
  message_thread_id?: number;
  /** The inline keyboard under it, if any. */
  reply_markup?: InlineKeyboardMarkup;
}

/** An answerCallbackQuery call the fake took: the query it answered and the text only the presser sees. */
export interface CallbackAnswer {
  callback_query_id: string;
  text?: string;
}

export interface TelegramCall {
  method: string;
  body: Record<string, unknown>;
  /** How the parameters came. */
  encoding: 'json' | 'form' | 'query';
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
  /** A user's message the bot may reply to, and the forum topic it is in (if any). */
  userWrote(chatId: number, messageId: number, threadId?: number): void;
  /**
   * A file users sent, as Telegram keeps it: its file_id answers `getFile` with a `file_path`, and
   * `/file/bot<token>/<file_path>` serves the bytes (https://core.telegram.org/bots/api#getfile).
   */
  addFile(bytes: Buffer): string;
  /** Downloads of files served (a URL of a wrong token is not one). */
  readonly downloads: number;
  /** Calls answered 429. */
  readonly refused: number;
  /**
   * A person presses an inline keyboard's button under the bot's message: the `callback_query`
   * update Telegram sends the webhook (with a fresh query id), or throws if the message has no
   * button with that callback_data.
   */
  pressButton(chatId: number, messageId: number, data: string, from: User): Update & { callback_query: CallbackQuery };
  /** The answerCallbackQuery calls taken, in order. */
  readonly callbackAnswers: CallbackAnswer[];
  close(): Promise<void>;
}

const LIMIT = 4096;

export async function startFakeTelegram(options: FakeTelegramOptions): Promise<FakeTelegram> {
  const limits = options.limits ?? { chat: { count: 1, perMs: 1000 }, group: { count: 20, perMs: 60_000 } };
  const rate = new FakeRateLimit();
  const chats = new Map<number, TelegramMessage[]>();
  const calls: TelegramCall[] = [];
  /** Where users' messages are: `${chat}:${message}` → topic (0: none). */
  const userMessages = new Map<string, number>();
  let nextId = 100;
  /** Files by file_id: their path and bytes. */
  const files = new Map<string, { path: string; bytes: Buffer }>();
  let downloads = 0;
  /** Callback queries issued and not yet answered. */
  const openQueries = new Set<string>();
  const callbackAnswers: CallbackAnswer[] = [];
  let nextUpdate = 700_000;

  const answer = (
    res: ServerResponse,
    call: TelegramCall,
    status: number,
    body: Omit<ApiSuccess<Message.TextMessage | UserFromGetMe | File | true>, 'ok'> | Omit<ApiError, 'ok' | 'error_code'>,
  ) => {
    call.status = status;
    sendJson(res, status, status === 200 ? { ok: true, ...body } : { ok: false, error_code: status, ...body });
  };

  const server = await startLocalServer((req: RecordedRequest, res) => {
    const [path = '', query = ''] = req.url.split('?', 2);
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
    if (download && req.method === 'GET') {
      const file = [...files.values()].find((f) => f.path === download[2]);
      if (download[1] !== options.botToken || !file) {
        return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      }
      downloads++;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.length) });
      return void res.end(file.bytes);
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(path);
    const { body, encoding } = readParameters(req, query);
    const call: TelegramCall = {
      method: canonicalMethod(match?.[2] ?? req.url),
      body,
      encoding,
      at: performance.timeOrigin + performance.now(),
      status: 0,
    };
    calls.push(call);
    if (!match || match[1] !== options.botToken) return answer(res, call, 401, { description: 'Unauthorized' });
    const chatId = Number(body.chat_id);
    const messages = chats.get(chatId) ?? [];
    chats.set(chatId, messages);

    let shown: { text: string; sent: string; parse_mode?: string; entities?: MessageEntity[] } | undefined;
    if (['sendMessage', 'editMessageText', 'sendMessageDraft'].includes(call.method)) {
      const sent = String(body.text ?? '');
      const parseMode = typeof body.parse_mode === 'string' ? body.parse_mode : undefined;
      let text = sent;
      let entities: MessageEntity[] = [];
      try {
        if (parseMode === 'HTML' && options.refuseHtml) throw new EntityError('Unsupported start tag at byte offset 0');
        if (parseMode === 'HTML') ({ text, entities } = parseTelegramHtml(sent));
      } catch (err) {
        return answer(res, call, 400, { description: `Bad Request: can't parse entities: ${(err as Error).message}` });
      }
      if (text.trim() === '' && call.method !== 'sendMessageDraft') {
        return answer(res, call, 400, { description: 'Bad Request: message text is empty' });
      }
      if (text.length > LIMIT) return answer(res, call, 400, { description: 'Bad Request: message is too long' });
      shown = { text, sent, ...(parseMode ? { parse_mode: parseMode } : {}), ...(entities.length ? { entities } : {}) };
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

    const markup = objectParameter(body.reply_markup) as InlineKeyboardMarkup | undefined;
    if (markup && !validKeyboard(markup)) return answer(res, call, 400, { description: 'Bad Request: BUTTON_DATA_INVALID' });
    switch (call.method) {
      case 'sendMessage': {
        const replyTo = objectParameter(body.reply_parameters) as { message_id?: unknown } | undefined;
        const repliedTopic = replyTo ? topicOf(chatId, Number(replyTo.message_id)) : undefined;
        const threadId = Number(body.message_thread_id) || repliedTopic || undefined;
        const message = {
          message_id: ++nextId,
          ...shown!,
          ...(threadId ? { message_thread_id: threadId } : {}),
          ...(markup?.inline_keyboard?.length ? { reply_markup: markup } : {}),
        };
        messages.push(message);
        return answer(res, call, 200, sentAnswer(chatId, message));
      }
      case 'editMessageText': {
        const message = messages.find((m) => m.message_id === Number(body.message_id));
        if (!message) return answer(res, call, 400, { description: 'Bad Request: message to edit not found' });
        const sameMarkup =
          !markup || JSON.stringify(markup.inline_keyboard) === JSON.stringify(message.reply_markup?.inline_keyboard ?? []);
        if (message.sent === shown!.sent && message.parse_mode === shown!.parse_mode && sameMarkup) {
          return answer(res, call, 400, {
            description:
              'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          });
        }
        delete message.entities;
        delete message.parse_mode;
        Object.assign(message, shown);
        if (markup?.inline_keyboard?.length) message.reply_markup = markup;
        else if (markup) delete message.reply_markup;
        return answer(res, call, 200, { result: { ...sentAnswer(chatId, message).result, edit_date: 1_736_942_402 } });
      }
      case 'sendMessageDraft':
        if (options.drafts === false)
          return answer(res, call, 400, { description: 'Bad Request: method is not available for this bot' });
        if (chatId <= 0) return answer(res, call, 400, { description: 'Bad Request: drafts can be sent only to private chats' });
        if (!Number.isInteger(body.draft_id) || body.draft_id === 0)
          return answer(res, call, 400, { description: 'Bad Request: invalid draft_id' });
        return answer(res, call, 200, { result: true });
      case 'getFile': {
        const file = files.get(String(body.file_id));
        if (!file) return answer(res, call, 400, { description: 'Bad Request: invalid file_id' });
        const result: File = {
          file_id: String(body.file_id),
          file_unique_id: `u${String(body.file_id)}`,
          file_size: file.bytes.length,
          file_path: file.path,
        };
        return answer(res, call, 200, { result });
      }
      case 'getMe':
        return answer(res, call, 200, { result: telegramGetMe().result });
      case 'sendChatAction':
        return answer(res, call, 200, { result: true });
      case 'answerCallbackQuery': {
        const id = String(body.callback_query_id ?? '');
        if (!openQueries.delete(id))
          return answer(res, call, 400, {
            description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
          });
        if (typeof body.text === 'string' && body.text.length > 200)
          return answer(res, call, 400, { description: 'Bad Request: MESSAGE_TOO_LONG' });
        callbackAnswers.push({ callback_query_id: id, ...(typeof body.text === 'string' ? { text: body.text } : {}) });
        return answer(res, call, 200, { result: true });
      }
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
  /** The topic of a message in the chat (a user's or the bot's), if it is in one. */
  function topicOf(chatId: number, messageId: number): number | undefined {
    const bot = chats.get(chatId)?.find((m) => m.message_id === messageId);
    return (bot ? bot.message_thread_id : userMessages.get(`${chatId}:${messageId}`)) || undefined;
  }

  return {
    url: server.url,
    server,
    calls,
    chat: (chatId) => [...(chats.get(chatId) ?? [])],
    userWrote: (chatId, messageId, threadId) => void userMessages.set(`${chatId}:${messageId}`, threadId ?? 0),
    addFile(bytes) {
      const id = `AgACAgQAAxkBAAI${files.size + 1}`;
      files.set(id, { path: `photos/file_${files.size}.jpg`, bytes });
      return id;
    },
    get downloads() {
      return downloads;
    },
    get refused() {
      return rate.refused;
    },
    pressButton(chatId, messageId, data, from) {
      const message = chats.get(chatId)?.find((m) => m.message_id === messageId);
      const buttons = message?.reply_markup?.inline_keyboard.flat() ?? [];
      if (!buttons.some((b) => 'callback_data' in b && b.callback_data === data))
        throw new Error(`no button '${data}' under message ${messageId} of chat ${chatId}`);
      const id = `${4_380_000_000_000_000 + ++nextUpdate}`;
      openQueries.add(id);
      const query: CallbackQuery = {
        id,
        from,
        message: sentAnswer(chatId, message!).result,
        // Opaque, one per chat (https://core.telegram.org/bots/api#callbackquery).
        chat_instance: String(8_000_000_000_000 + Math.abs(chatId)),
        data,
      };
      return { update_id: nextUpdate, callback_query: query };
    },
    callbackAnswers,
    close: () => server.close(),
  };
}

/** The answer to a sent or edited message: the whole `Message`, in its topic when it is in one. */
function sentAnswer(chatId: number, message: TelegramMessage) {
  const topic = message.message_thread_id
    ? { message_thread_id: message.message_thread_id, is_topic_message: true as const }
    : {};
  const entities = message.entities?.length ? { entities: message.entities } : {};
  const markup = message.reply_markup ? { reply_markup: message.reply_markup } : {};
  return telegramSentMessage(chatId, message.text, message.message_id, { ...topic, ...entities, ...markup });
}

/** "All methods in the Bot API are case-insensitive": the documented spelling of a known method. */
const METHODS = [
  'sendMessage',
  'editMessageText',
  'sendMessageDraft',
  'sendChatAction',
  'deleteMessage',
  'getMe',
  'getFile',
  'answerCallbackQuery',
];

/** An inline keyboard whose callback buttons carry 1–64 bytes of callback_data (https://core.telegram.org/bots/api#inlinekeyboardbutton). */
function validKeyboard(markup: InlineKeyboardMarkup): boolean {
  if (!Array.isArray(markup.inline_keyboard)) return false;
  return markup.inline_keyboard.every(
    (row) =>
      Array.isArray(row) &&
      row.every((button) => {
        if (typeof button?.text !== 'string') return false;
        if (!('callback_data' in button)) return true;
        const bytes = Buffer.byteLength(String(button.callback_data));
        return bytes >= 1 && bytes <= 64;
      }),
  );
}
function canonicalMethod(name: string): string {
  return METHODS.find((method) => method.toLowerCase() === name.toLowerCase()) ?? name;
}

/**
 * The parameters of a call, as https://core.telegram.org/bots/api#making-requests lists the ways
 * to pass them: the query string, a form body, or a JSON body (multipart is not modelled). Form
 * and query values are strings; objects arrive JSON-serialized and are read where they are used.
 */
function readParameters(req: RecordedRequest, query: string) {
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  const body: Record<string, unknown> = Object.fromEntries(new URLSearchParams(query));
  let encoding: TelegramCall['encoding'] = 'query';
  if (contentType.startsWith('application/json') && req.json && typeof req.json === 'object') {
    encoding = 'json';
    Object.assign(body, req.json);
  } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
    encoding = 'form';
    Object.assign(body, Object.fromEntries(new URLSearchParams(req.body)));
  }
  for (const name of ['draft_id', 'message_id', 'message_thread_id']) {
    if (typeof body[name] === 'string' && /^-?\d+$/.test(body[name])) body[name] = Number(body[name]);
  }
  return { body, encoding };
}

/** An object parameter: itself in JSON, a JSON string in a form or query string. */
function objectParameter(value: unknown): object | undefined {
  if (typeof value === 'object' && value !== null) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
