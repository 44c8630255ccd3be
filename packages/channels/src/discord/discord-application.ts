import { z } from 'zod';
import type { CredentialCheck } from '../credential-check.js';
import { type JsonReply, redact } from '../http.js';

/** The part of `GET /applications/@me`'s application object the check reads. */
const applicationSchema = z.looseObject({ id: z.string(), verify_key: z.string().optional() });

/**
 * Judges `GET /applications/@me` (with `Authorization: Bot <botToken>`): the token must be
 * accepted, belong to `applicationId`, and the application's `verify_key` must be the configured
 * `publicKey` — else every signature check would refuse Discord's interactions.
 */
export function judgeDiscordApplication(
  label: string,
  reply: JsonReply,
  config: { applicationId: string; publicKey: string; botToken: string },
): CredentialCheck {
  if (reply.status < 200 || reply.status >= 300) {
    const message = z.looseObject({ message: z.string() }).safeParse(reply.json);
    const detail = redact(message.success ? message.data.message : reply.text, [config.botToken]);
    return { connected: false, reason: `${label} failed with ${reply.status}${detail ? `: ${detail}` : ''}` };
  }
  const app = applicationSchema.safeParse(reply.json);
  if (!app.success) return { connected: false, reason: `${label} returned an unexpected answer` };
  if (app.data.id !== config.applicationId) {
    return {
      connected: false,
      reason: `${label}: the bot token belongs to application ${app.data.id}, not applicationId ${config.applicationId}`,
    };
  }
  if (app.data.verify_key && app.data.verify_key.toLowerCase() !== config.publicKey.toLowerCase()) {
    return { connected: false, reason: `${label}: publicKey is not this application's public key` };
  }
  return { connected: true };
}
