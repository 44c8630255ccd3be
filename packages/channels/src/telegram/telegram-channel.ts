import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { checkWith } from '../credential-check.js';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseJsonBody } from '../inbound.js';
import { liveConfigShape } from '../live/live-config.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { parseTelegramUpdate } from './parse-telegram-update.js';
import { judgeTelegramGetMe } from './telegram-api-result.js';
import { parseTelegramCallback, telegramApprovals } from './telegram-approvals.js';
import { expectOk, sendTelegramMarkdown, telegramReplyToSchema } from './telegram-call.js';
import { telegramLive } from './telegram-live.js';
import { locateTelegramFile } from './telegram-media.js';
import { verifyTelegramSecret } from './verify-telegram-secret.js';

/** The Bot API's limit on `sendMessage` text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** A Telegram bot through its webhook: secret-token-checked updates in, `sendMessage` replies out. */
export const telegram = defineChannel({
  type: 'telegram',
  config: z.strictObject({
    botToken: z.string().min(8),
    /** The secret_token given to setWebhook, checked on every update. */
    secretToken: z.string().min(1),
    /** The bot's @username (getMe's `username`): in groups, `@username` and `/command@username` address the bot. */
    botUsername: z
      .string()
      .regex(/^@?[A-Za-z0-9_]{3,64}$/, 'a Telegram username')
      .optional(),
    apiUrl: z.url().default('https://api.telegram.org'),
    ...liveConfigShape(1000),
    /** Telegram's documented limits: about one message a second in a chat, 20 a minute in a group. */
    sendLimits: sendLimitsSchema({ chat: { count: 1, perMs: 1000 }, group: { count: 20, perMs: 60_000 } }),
  }),
  limits: { textLength: TELEGRAM_TEXT_LIMIT },
  secrets: (config) => [config.botToken, config.secretToken],

  receive(request, config) {
    verifyTelegramSecret(request, config.secretToken);
    const body = parseJsonBody(request.rawBody);
    // A press of an inline keyboard's button (our Approve / Deny) comes as a `callback_query` update.
    if (typeof body === 'object' && body !== null && 'callback_query' in body) return parseTelegramCallback(body);
    return parseTelegramUpdate(body, {
      botId: telegramBotId(config.botToken),
      botUsername: config.botUsername,
    });
  },

  live: { open: telegramLive },

  approvals: telegramApprovals,

  /** Another hook's replies into a chat (`chat: -100…`), as new messages. */
  target: {
    schema: z.strictObject({
      chat: z.union([
        z.int(),
        z
          .string()
          .regex(/^-?\d{1,20}$/, 'a chat id')
          .transform(Number),
      ]),
    }),
    replyTo: (target) => ({ chat_id: Number(target.chat) }),
  },

  /** Replies to a chat share its limits; groups (negative ids) have the per-minute one too. */
  sendTarget(message, config) {
    const target = telegramReplyToSchema.safeParse(message.replyTo);
    if (!target.success) return null;
    const { chat, group } = config.sendLimits;
    return { key: String(target.data.chat_id), rules: target.data.chat_id < 0 ? [chat, group] : [chat] };
  },

  /**
   * Sends a part as HTML rendered from its Markdown (plain text if Telegram refuses the entities),
   * as live replies do; only the first is marked as a reply, the rest follow it in the chat.
   */
  async deliver({ message, text, index }, { hook, config, http }) {
    const target = telegramReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`Hook '${hook}': Telegram sendMessage: the job holds no Telegram chat`, false);
    const { chat_id, message_id, message_thread_id } = target.data;
    const where = message_thread_id === undefined ? { chat_id } : { chat_id, message_thread_id };
    const client = { hook, botToken: config.botToken, apiUrl: config.apiUrl, http };
    // Still answer if the user deleted their message meanwhile.
    const reply =
      index === 0 && message_id !== undefined ? { reply_parameters: { message_id, allow_sending_without_reply: true } } : {};
    expectOk(await sendTelegramMarkdown(client, 'sendMessage', { ...where, ...reply }, text), config.botToken);
  },

  /** Photos and documents: getFile, then the file's URL. */
  media: { locate: locateTelegramFile },

  /** `getMe`: the cheapest call that proves the bot token is valid. */
  checkCredentials({ hook, config, http }) {
    const label = `Hook '${hook}': Telegram getMe`;
    const call = () => http.send({ label, method: 'GET', url: joinUrl(config.apiUrl, `bot${config.botToken}/getMe`) });
    return checkWith(call, (reply) => judgeTelegramGetMe(label, reply, config.botToken));
  },
});

/**
 * The bot's user id, read from its token: a Bot API token is `<number>:<secret>`
 * (core.telegram.org/bots/api#authorizing-your-bot shows the shape), and that number is the id
 * getMe answers — relied on by bot libraries, though Telegram's docs do not say it in words.
 */
export function telegramBotId(botToken: string): number | undefined {
  const match = /^(\d{1,20}):/.exec(botToken);
  return match ? Number(match[1]) : undefined;
}
