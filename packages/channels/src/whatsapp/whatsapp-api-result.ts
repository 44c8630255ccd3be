import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import type { CredentialCheck } from '../credential-check.js';
import { DeliveryError } from '../delivery-error.js';
import { type JsonReply, redact, statusFailure } from '../http.js';

/** The Graph API's error body: `{error: {message, type, code, error_subcode?, error_data?: {details}}}`. Loose: Meta adds fields. */
const graphErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    code: z.int().optional(),
    error_data: z.looseObject({ details: z.string().optional() }).optional(),
  }),
});

/** Free-form messages may only answer a customer who wrote within the last 24 hours. */
export const REENGAGEMENT_CODE = 131047;
/** Throttling: app (4), account (80007), throughput (130429), spam (131048), pair rate (131056). */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);
/** The access token expired or was revoked. */
const TOKEN_CODES = new Set([190]);

/**
 * Maps a Graph API answer to nothing (sent) or a `DeliveryError`. An answer outside the 24-hour
 * customer-service window fails for good with an error that says so: retrying cannot reopen it,
 * only the customer writing again (or a template message) can.
 */
export function checkWhatsAppReply(label: string, reply: JsonReply, secrets: readonly string[]): void {
  if (reply.status >= 200 && reply.status < 300) return;
  const parsed = graphErrorSchema.safeParse(reply.json);
  const error = parsed.success ? parsed.data.error : undefined;
  const code = error?.code;
  const detail = redact([error?.message, error?.error_data?.details].filter(Boolean).join(': ') || reply.text, secrets);
  if (code === REENGAGEMENT_CODE) {
    throw new DeliveryError(
      `${label}: the customer last wrote more than 24 hours ago, outside WhatsApp's customer-service window, so a free-form reply cannot be sent (${REENGAGEMENT_CODE}: ${detail})`,
      false,
    );
  }
  const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
  if (code !== undefined && RATE_LIMIT_CODES.has(code)) {
    throw new DeliveryError(
      `${label} was throttled (${code}): ${detail}`,
      true,
      retryAfterMs === undefined ? {} : { retryAfterMs },
    );
  }
  if (code !== undefined && TOKEN_CODES.has(code)) {
    throw new DeliveryError(`${label} failed with ${reply.status} (${code}): ${detail}`, false, { credentialsRefused: true });
  }
  throw statusFailure(label, reply.status, code === undefined ? detail : `(${code}) ${detail}`, retryAfterMs);
}

/** `GET /{phone_number_id}` answers the number's details for a valid token, a Graph error otherwise. */
export function judgeWhatsAppPhoneNumber(label: string, reply: JsonReply, secrets: readonly string[]): CredentialCheck {
  try {
    checkWhatsAppReply(label, reply, secrets);
    return { connected: true };
  } catch (err) {
    if (err instanceof DeliveryError) return { connected: false, reason: err.message };
    throw err;
  }
}
