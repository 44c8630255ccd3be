import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import { type DeliveryClient, redact, statusFailure } from '../http.js';

/** What the bot needs to ask Microsoft Entra ID for a Connector token. */
export interface TeamsApp {
  hook: string;
  appId: string;
  appPassword: string;
  tokenUrl: string;
  http: DeliveryClient;
}

/** The token is renewed this long before it expires, so a send never carries one that lapses in flight. */
const RENEW_EARLY_MS = 5 * 60 * 1000;
const SCOPE = 'https://api.botframework.com/.default';

const tokenSchema = z.looseObject({ access_token: z.string().min(1), expires_in: z.coerce.number().positive() });
const tokenErrorSchema = z.looseObject({ error: z.string(), error_description: z.string().optional() });

interface Cached {
  token: Promise<{ value: string; expiresAt: number }>;
}

/** Per app and token URL (and so per process): one token, one request for it in flight. */
const cache = new Map<string, Cached>();
const keyOf = (app: TeamsApp) => `${app.tokenUrl}\n${app.appId}\n${app.appPassword}`;

/**
 * A Connector access token from the client-credentials grant, cached until five minutes before
 * it expires. A refused request is not cached, so fixed credentials work on the next attempt.
 */
export async function teamsAccessToken(app: TeamsApp, now = Date.now()): Promise<string> {
  const key = keyOf(app);
  const cached = cache.get(key);
  if (cached) {
    const token = await cached.token.catch(() => undefined);
    if (token && token.expiresAt - RENEW_EARLY_MS > now) return token.value;
    if (cache.get(key) === cached) cache.delete(key);
  }
  const entry: Cached = { token: requestToken(app, now) };
  cache.set(key, entry);
  try {
    return (await entry.token).value;
  } catch (err) {
    if (cache.get(key) === entry) cache.delete(key);
    throw err;
  }
}

/** Forgets the app's token (the Connector refused it), so the next send asks for a new one. */
export function forgetTeamsAccessToken(app: TeamsApp): void {
  cache.delete(keyOf(app));
}

async function requestToken(app: TeamsApp, now: number): Promise<{ value: string; expiresAt: number }> {
  const label = `Hook '${app.hook}': Microsoft token`;
  const reply = await app.http.send({
    label,
    method: 'POST',
    url: app.tokenUrl,
    form: { grant_type: 'client_credentials', client_id: app.appId, client_secret: app.appPassword, scope: SCOPE },
  });
  if (reply.status >= 200 && reply.status < 300) {
    const token = tokenSchema.safeParse(reply.json);
    if (!token.success) throw new DeliveryError(`${label} returned an unexpected answer`, true);
    return { value: token.data.access_token, expiresAt: now + token.data.expires_in * 1000 };
  }
  const refusal = tokenErrorSchema.safeParse(reply.json);
  const detail = redact(refusal.success ? `${refusal.data.error}: ${refusal.data.error_description ?? ''}` : reply.text, [
    app.appPassword,
  ]);
  // Entra answers a wrong secret or an unknown app with 400/401 invalid_client: our credentials are refused.
  if (refusal.success && ['invalid_client', 'unauthorized_client'].includes(refusal.data.error)) {
    throw new DeliveryError(`${label} failed with ${reply.status}: ${detail}`, false, { credentialsRefused: true });
  }
  throw statusFailure(label, reply.status, detail);
}

/** What of a Teams hook's config its tokens are asked with. */
export interface TeamsAppConfig {
  appId: string;
  appPassword: string;
  tenantId?: string | undefined;
  tokenUrl?: string | undefined;
}

/** The app as the token endpoint knows it: Entra ID's endpoint for the tenant (multi-tenant: botframework.com) unless `tokenUrl` names one. */
export function teamsApp(hook: string, config: TeamsAppConfig, http: TeamsApp['http']): TeamsApp {
  const tenant = config.tenantId ?? 'botframework.com';
  const tokenUrl = config.tokenUrl ?? `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`;
  return { hook, appId: config.appId, appPassword: config.appPassword, tokenUrl, http };
}
