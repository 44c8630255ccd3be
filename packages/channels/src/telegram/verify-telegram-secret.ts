import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

/**
 * Checks `X-Telegram-Bot-Api-Secret-Token` against the `secret_token` given to setWebhook:
 * Telegram does not sign updates, so this shared secret is the only proof of origin.
 *
 * @throws AppError 401 `invalid_token` when the header is missing or wrong.
 */
export function verifyTelegramSecret(request: InboundRequest, secretToken: string): void {
  const given = headerValue(request.headers, 'x-telegram-bot-api-secret-token');
  if (!given) throw unauthorized('Missing X-Telegram-Bot-Api-Secret-Token header.', 'invalid_token');
  if (!safeEqual(given, secretToken)) throw unauthorized('Invalid Telegram secret token.', 'invalid_token');
}
