import type { ApiError, ApiSuccess, Chat, Message, Update, UserFromGetMe } from '@grammyjs/types';

/**
 * Telegram as the Bot API documents it (https://core.telegram.org/bots/api): webhook `Update`s
 * in (proven by the `X-Telegram-Bot-Api-Secret-Token` header, not signed), and the answers
 * `sendMessage` and `getMe` give. Bodies are typed with `@grammyjs/types` (the Bot API's types,
 * one file per section of the documentation), so a field Telegram does not send fails to compile.
 */

/** The header carrying the `secret_token` given to setWebhook. */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** The bot every fixture speaks for (`getMe`, and the `from` of what it sends). */
export const TELEGRAM_BOT = {
  id: 110_201_543,
  is_bot: true,
  first_name: 'Switchboard',
  username: 'switchboard_bot',
} as const;

/** The supergroup of the fixtures. */
const TEAM_CHAT = { id: -100_987_654_321, title: 'Team', type: 'supergroup' } satisfies Chat.SupergroupChat;

/**
 * An update holding a text message in a supergroup; override the message or the update per test
 * (loose on purpose: tests send malformed updates too). Shaped like the documented test update
 * of https://core.telegram.org/bots/webhooks#testing-your-bot-with-updates (update_id, message
 * with message_id, from, chat, date, text), with the chat `type` and `title` the current Bot API
 * `Chat` object requires.
 */
export function telegramUpdate(message: Record<string, unknown> = {}, update: Record<string, unknown> = {}) {
  const base = {
    update_id: 987_654_321,
    message: {
      message_id: 42,
      from: { id: 111_222_333, is_bot: false, first_name: 'Ada', language_code: 'en' },
      chat: TEAM_CHAT,
      date: 1_736_942_400,
      text: 'What is a monad?',
    },
  } satisfies Update;
  return { ...base, message: { ...base.message, ...message }, ...update };
}

/**
 * The `message` of an update sent in a forum topic (https://core.telegram.org/bots/api#message:
 * `message_thread_id` and `is_topic_message`; the chat has `is_forum`). Pass it to
 * `telegramUpdate` and override further as needed.
 */
export function telegramTopicMessage(threadId: number, fields: Record<string, unknown> = {}) {
  const message = {
    message_id: 4242,
    message_thread_id: threadId,
    is_topic_message: true,
    from: { id: 111_222_333, is_bot: false, first_name: 'Ada', language_code: 'en' },
    chat: { ...TEAM_CHAT, is_forum: true },
    date: 1_736_942_400,
    text: 'What is a monad?',
  } satisfies Message.TextMessage;
  return { ...message, ...fields };
}

/**
 * What `sendMessage` (and `editMessageText`) answers when the message was sent: `{ok: true,
 * result: Message}` — the whole message, with its id, the bot as `from`, the chat, the date and
 * the text (https://core.telegram.org/bots/api#sendmessage, "On success, the sent Message is
 * returned").
 */
export function telegramSentMessage(
  chat: number | Chat,
  text: string,
  messageId = 43,
  fields: Partial<Message.TextMessage> = {},
): ApiSuccess<Message.TextMessage> {
  return {
    ok: true,
    result: {
      message_id: messageId,
      from: TELEGRAM_BOT,
      chat: typeof chat === 'number' ? chatWithId(chat) : chat,
      date: 1_736_942_401,
      text,
      ...fields,
    },
  };
}

/** A chat object for an id: a private chat for positive ids, a supergroup for negative ones. */
export function chatWithId(id: number): Chat {
  return id > 0 ? { id, type: 'private', first_name: 'Ada' } : { ...TEAM_CHAT, id };
}

/** What `getMe` answers for a valid token (HTTP 200); a refused token gets `telegramUnauthorized()` with 401. */
export function telegramGetMe(): ApiSuccess<UserFromGetMe> {
  return {
    ok: true,
    result: {
      ...TELEGRAM_BOT,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    },
  };
}

/** The Bot API's answer to a request with a token it does not know (HTTP 401). */
export function telegramUnauthorized(): ApiError {
  return { ok: false, error_code: 401, description: 'Unauthorized' };
}
