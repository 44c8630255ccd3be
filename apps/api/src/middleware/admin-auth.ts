import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, unauthorized } from '@switchboard/protocol';
import type { Middleware } from 'koa';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Guards the operator's routes (`/admin/*`, `/metrics`, the dashboard's data) with `adminKeys`, given as
 * `Authorization: Bearer <key>` (never in the query string, which reaches logs). API keys never open
 * them. With no admin keys: open when no API keys are set either (a local setup), else 403, so
 * turning API keys on never leaves the operator's view open by accident.
 *
 * `browserLogin` (Bull Board, a page a browser opens by URL and which cannot add a header) also
 * takes HTTP Basic credentials whose password is an admin key (any user name), and asks for them
 * with `WWW-Authenticate: Basic`, so the browser prompts once and sends them on every request.
 */
export function adminAuth(
  adminKeys: readonly string[],
  apiKeysSet: boolean,
  options: { browserLogin?: boolean } = {},
): Middleware {
  const known = adminKeys.map(digest);
  return async (ctx, next) => {
    if (ctx.method === 'OPTIONS') return next();
    if (known.length === 0) {
      if (!apiKeysSet) return next();
      throw new AppError('Admin routes are off: API keys are set but no admin keys (set adminKeys or SWITCHBOARD_ADMIN_KEYS).', {
        status: 403,
        type: 'permission_error',
        code: 'admin_keys_not_configured',
      });
    }
    const authorization = ctx.get('authorization');
    const given =
      /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? (options.browserLogin ? basicPassword(authorization) : undefined);
    if (!given) throw refused('Missing admin key: send Authorization: Bearer <admin key>.');
    const d = digest(given);
    let match = false;
    for (const key of known) if (timingSafeEqual(d, key)) match = true;
    if (!match) throw refused('Incorrect admin key provided.');
    ctx.state.admin = true;
    await next();
  };

  function refused(message: string): AppError {
    if (!options.browserLogin) return unauthorized(message, 'invalid_admin_key');
    return new AppError(message, {
      status: 401,
      type: 'authentication_error',
      code: 'invalid_admin_key',
      headers: { 'WWW-Authenticate': 'Basic realm="Switchboard admin", charset="UTF-8"' },
    });
  }
}

/** The password of `Authorization: Basic base64(user:password)`. */
function basicPassword(authorization: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
}
