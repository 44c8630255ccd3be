import type { TelegramHookConfig } from '@switchboard/config';
import { z } from 'zod';
import { DeliveryError, type DeliveryMeta, type Inbound, type InboundMessage, type InboundRequest } from '../channel.js';
import { joinUrl } from '../http.js';
import { parseJsonBody } from '../inbound.js';
import { PlatformAdapter } from '../platform-adapter.js';
import { parseTelegramUpdate } from './parse-telegram-update.js';
import { checkTelegramReply } from './telegram-api-result.js';
import { verifyTelegramSecret } from './verify-telegram-secret.js';

/** The Bot API's limit on `sendMessage` text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** What `parseTelegramUpdate` stored in `replyTo`; checked again because it comes back from the job store. */
const telegramReplyToSchema = z.object({ chat_id: z.int(), message_id: z.int() });

/** A Telegram bot through its webhook: secret-token-checked updates in, `sendMessage` replies out. */
export class TelegramAdapter extends PlatformAdapter<TelegramHookConfig> {
  readonly type = 'telegram' as const;
  protected readonly textLimit = TELEGRAM_TEXT_LIMIT;
  readonly #label = `Hook '${this.name}': Telegram sendMessage`;

  receive(request: InboundRequest): Inbound {
    verifyTelegramSecret(request, this.config.secretToken);
    return parseTelegramUpdate(parseJsonBody(request.rawBody));
  }

  /** Sends a part; only the first is marked as a reply, the rest follow it in the chat. */
  async deliverPart(message: InboundMessage, part: string, index: number, _meta: DeliveryMeta): Promise<void> {
    const target = telegramReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`${this.#label}: the job holds no Telegram chat and message`, false);
    const { chat_id, message_id } = target.data;
    const reply = await this.http.send({
      label: this.#label,
      method: 'POST',
      url: joinUrl(this.config.apiUrl, `bot${this.config.botToken}/sendMessage`),
      body:
        index === 0
          ? // Still answer if the user deleted their message meanwhile.
            { chat_id, text: part, reply_parameters: { message_id, allow_sending_without_reply: true } }
          : { chat_id, text: part },
    });
    checkTelegramReply(this.#label, reply, this.config.botToken);
  }
}
