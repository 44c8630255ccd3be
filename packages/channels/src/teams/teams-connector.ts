import { joinUrl } from '@switchboard/http';
import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import type { DeliveryContext } from '../definition.js';
import { redact, statusFailure } from '../http.js';
import { forgetTeamsAccessToken, type TeamsAppConfig, teamsAccessToken, teamsApp } from './teams-access-token.js';

/**
 * One Connector call on an activity (`{serviceUrl}/v3/conversations/{id}/activities/{activityId}`)
 * with the bot's client-credentials token; the answer's JSON. A 401 forgets the token (the next
 * call asks for a new one); failures are `DeliveryError`s by status.
 */
export async function callConnector(
  { hook, config, http }: DeliveryContext<TeamsAppConfig>,
  label: string,
  method: 'POST' | 'PUT',
  where: { service_url: string; conversation_id: string; activity_id: string },
  body: Record<string, unknown>,
): Promise<unknown> {
  const app = teamsApp(hook, config, http);
  const token = await teamsAccessToken(app);
  const path = `v3/conversations/${encodeURIComponent(where.conversation_id)}/activities/${encodeURIComponent(where.activity_id)}`;
  const reply = await http.send({
    label,
    method,
    url: joinUrl(where.service_url, path),
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  if (reply.status >= 200 && reply.status < 300) return reply.json;
  if (reply.status === 401) forgetTeamsAccessToken(app);
  throw statusFailure(
    label,
    reply.status,
    redact(reply.text, [token, config.appPassword]),
    parseRetryAfter(reply.headers['retry-after']),
  );
}

/** What `parseTeamsActivity` stored in `replyTo`; checked again because it comes back from the job store. */
export const teamsReplyToSchema = z.object({
  service_url: z.url({ protocol: /^https?$/ }),
  conversation_id: z.string().min(1),
  activity_id: z.string().min(1),
});
