import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, unauthorized } from '@switchboard/protocol';
import type { Middleware } from 'koa';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Guards the operator's routes (`/admin/*`, `/metrics`, the dashboard) with `adminKeys`, given as
 * `Authorization: Bearer <key>` (never in the query string, which reaches logs). API keys never open
 * them. With no admin keys: open when no API keys are set either (a local setup), else 403, so
 * turning API keys on never leaves the operator's view open by accident.
 */
export function adminAuth(adminKeys: readonly string[], apiKeysSet: boolean): Middleware {
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
    const given = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    if (!given) throw unauthorized('Missing admin key: send Authorization: Bearer <admin key>.', 'invalid_admin_key');
    const d = digest(given);
    let match = false;
    for (const key of known) if (timingSafeEqual(d, key)) match = true;
    if (!match) throw unauthorized('Incorrect admin key provided.', 'invalid_admin_key');
    ctx.state.admin = true;
    await next();
  };
}
