import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import { type JsonReply, redact, secondsToMs, statusFailure } from '../http.js';

/** Discord's error body; a 429 adds `retry_after` in (fractional) seconds and `global`. */
const discordErrorSchema = z.looseObject({
  message: z.string().optional(),
  code: z.number().optional(),
  retry_after: z.number().optional(),
  global: z.boolean().optional(),
});

/** JSON error codes: the interaction token is no longer valid (it lives fifteen minutes). */
const EXPIRED_TOKEN_CODES = new Set([50027, 10015]);
/** Unknown Message: it was deleted. */
const UNKNOWN_MESSAGE = 10008;

/** The interaction's webhook token has expired; the bot token can still post in the channel. */
export class InteractionExpired extends DeliveryError {
  override name = 'InteractionExpired';
}

/** Maps a Discord answer to nothing (done) or a `DeliveryError`; `secrets` (the interaction token…) never reach a message. */
export function checkDiscordReply(label: string, reply: JsonReply, secrets: readonly string[]): void {
  if (reply.status >= 200 && reply.status < 300) return;
  const error = discordErrorSchema.safeParse(reply.json);
  const body = error.success ? error.data : undefined;
  const retryAfterMs = secondsToMs(body?.retry_after) ?? parseRetryAfter(reply.headers['retry-after']);
  // The interaction token is a credential for fifteen minutes: it never goes into a message.
  const detail = redact(body?.message ?? reply.text, secrets);
  if (body?.code !== undefined && EXPIRED_TOKEN_CODES.has(body.code)) {
    const refused = reply.status === 401 || reply.status === 403;
    throw new InteractionExpired(
      `${label} failed with ${reply.status}: ${detail}`,
      false,
      refused ? { credentialsRefused: true } : {},
    );
  }
  throw statusFailure(label, reply.status, detail, retryAfterMs);
}

/** True for Discord's "Unknown Message". */
export function isUnknownMessage(reply: JsonReply): boolean {
  const error = discordErrorSchema.safeParse(reply.json);
  return reply.status === 404 && error.success && error.data.code === UNKNOWN_MESSAGE;
}

/**
 * How long the route's bucket is empty for, from Discord's `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset-After` headers; undefined while it still has room.
 */
export function bucketEmptyForMs(reply: JsonReply): number | undefined {
  const remaining = header(reply, 'x-ratelimit-remaining');
  if (remaining !== '0') return undefined;
  const after = Number(header(reply, 'x-ratelimit-reset-after'));
  return Number.isFinite(after) && after > 0 ? Math.ceil(after * 1000) : undefined;
}

function header(reply: JsonReply, name: string): string | undefined {
  const value = reply.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
