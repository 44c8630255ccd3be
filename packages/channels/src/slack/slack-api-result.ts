import { z } from 'zod';
import type { CredentialCheck } from '../credential-check.js';
import { DeliveryError } from '../delivery-error.js';
import { type JsonReply, redact } from '../http.js';

/**
 * Slack Web API answers HTTP 200 with `{ok, error?}`; failures are in the body, not the status.
 * Loose: successful answers carry the posted message and more, none of which we need.
 */
export const slackApiResultSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });

/** Errors that mean the bot token is wrong, gone, or not allowed to post. */
const CREDENTIAL_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'missing_scope',
]);

/**
 * Maps an HTTP-200 Slack answer to nothing (posted) or a `DeliveryError`: `ratelimited` is
 * retryable, credential errors are final and flagged, any other error is final.
 */
export function checkSlackResult(label: string, json: unknown, secrets: readonly string[], retryAfterMs?: number): void {
  const parsed = slackApiResultSchema.safeParse(json);
  // Not retried: the message may have been posted, and a retry would post it twice.
  if (!parsed.success) throw new DeliveryError(`${label} returned an unexpected answer`, false);
  if (parsed.data.ok) return;
  const error = redact(parsed.data.error ?? 'unknown_error', secrets);
  const message = `${label} failed: ${error}`;
  if (error === 'ratelimited') throw new DeliveryError(message, true, retryAfterMs === undefined ? {} : { retryAfterMs });
  if (CREDENTIAL_ERRORS.has(error)) throw new DeliveryError(message, false, { credentialsRefused: true });
  throw new DeliveryError(message, false);
}

/** The `error` code of an answer with a non-2xx status, if it has one (proxies answer HTML). */
export function slackErrorCode(json: unknown): string | undefined {
  const parsed = slackApiResultSchema.partial({ ok: true }).safeParse(json);
  return parsed.success ? parsed.data.error : undefined;
}

/** `auth.test` answers HTTP 200 `{ok: true, user_id, team_id…}` for a valid token, `{ok: false, error}` otherwise. */
export function judgeSlackAuthTest(label: string, reply: JsonReply, secrets: readonly string[]): CredentialCheck {
  const parsed = slackApiResultSchema.safeParse(reply.json);
  if (reply.status >= 200 && reply.status < 300 && parsed.success && parsed.data.ok) return { connected: true };
  const detail = redact((parsed.success ? parsed.data.error : undefined) ?? `status ${reply.status}`, secrets);
  return { connected: false, reason: `${label} failed: ${detail}` };
}
