/**
 * Telegram as the Bot API documents it: webhook `Update`s in (proven by the
 * `X-Telegram-Bot-Api-Secret-Token` header, not signed), and the answers `sendMessage` and
 * `getMe` give.
 */

/** The header carrying the `secret_token` given to setWebhook. */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** An update holding a text message in a supergroup; override the message or the update per test. */
export function telegramUpdate(message: Record<string, unknown> = {}, update: Record<string, unknown> = {}) {
  return {
    update_id: 987_654_321,
    message: {
      message_id: 42,
      from: { id: 111_222_333, is_bot: false, first_name: 'Ada', language_code: 'en' },
      chat: { id: -100_987_654_321, title: 'Team', type: 'supergroup' },
      date: 1_736_942_400,
      text: 'What is a monad?',
      ...message,
    },
    ...update,
  };
}

/** What `sendMessage` answers when the message was sent: `{ok: true, result: Message}`. */
export function telegramSentMessage(chatId: number, text: string, messageId = 43) {
  return {
    ok: true,
    result: {
      message_id: messageId,
      from: { id: 110_201_543, is_bot: true, first_name: 'Switchboard' },
      chat: { id: chatId, type: 'supergroup' },
      date: 1_736_942_401,
      text,
    },
  };
}

/** What `getMe` answers for a valid token (HTTP 200); a refused token gets `telegramUnauthorized()` with 401. */
export function telegramGetMe() {
  return {
    ok: true,
    result: {
      id: 110_201_543,
      is_bot: true,
      first_name: 'Switchboard',
      username: 'switchboard_bot',
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    },
  };
}

/** The Bot API's answer to a request with a token it does not know (HTTP 401). */
export function telegramUnauthorized() {
  return { ok: false, error_code: 401, description: 'Unauthorized' };
}
