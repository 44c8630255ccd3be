import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import type { CredentialCheck } from '../credential-check.js';
import { DeliveryError } from '../delivery-error.js';
import type { JsonReply } from '../http.js';
import { redact, secondsToMs, statusFailure } from '../http.js';

/**
 * A Bot API answer: `{ok:true, result}` or `{ok:false, error_code, description, parameters?}`.
 * Loose: `result` is a full Message we do not need, and `parameters` may grow.
 */
export const telegramResultSchema = z.looseObject({
  ok: z.boolean(),
  error_code: z.int().optional(),
  description: z.string().optional(),
  parameters: z.looseObject({ retry_after: z.number().optional() }).optional(),
});

/**
 * Maps a Bot API answer to nothing (sent) or a `DeliveryError`. The bot token is in the URL, so
 * it is kept out of the message even if Telegram were to echo it.
 */
export function checkTelegramReply(label: string, reply: JsonReply, botToken: string): void {
  const parsed = telegramResultSchema.safeParse(reply.json);
  const ok = reply.status >= 200 && reply.status < 300;
  if (ok && parsed.success && parsed.data.ok) return;
  // Not retried: the message may have been sent, and a retry would send it twice.
  if (ok) throw new DeliveryError(`${label} returned an unexpected answer`, false);
  const result = parsed.success ? parsed.data : undefined;
  const status = result?.error_code ?? reply.status;
  const retryAfterMs = secondsToMs(result?.parameters?.retry_after) ?? parseRetryAfter(reply.headers['retry-after']);
  const detail = redact(result?.description ?? reply.text, [botToken]);
  // Telegram's 403 means one user blocked the bot or left the chat: that conversation is closed,
  // but the bot's token is fine, so the channel must not show as disconnected for everyone.
  if (status === 403) throw new DeliveryError(`${label} failed with 403: ${detail}`, false);
  throw statusFailure(label, status, detail, retryAfterMs);
}

/** `getMe` answers `{ok: true, result: User}` for a valid token, 401 `{ok: false, description}` otherwise. */
export function judgeTelegramGetMe(label: string, reply: JsonReply, botToken: string): CredentialCheck {
  const parsed = telegramResultSchema.safeParse(reply.json);
  if (reply.status >= 200 && reply.status < 300 && parsed.success && parsed.data.ok) return { connected: true };
  const result = parsed.success ? parsed.data : undefined;
  const detail = redact(result?.description ?? reply.text, [botToken]);
  return { connected: false, reason: `${label} failed with ${result?.error_code ?? reply.status}${detail ? `: ${detail}` : ''}` };
}
