import { adminAccess } from '@switchboard/protocol';
import type { Middleware } from 'koa';

/**
 * Guards the operator's routes (`/admin/*`, `/metrics`, the dashboard) with `adminKeys`, by the
 * rule every process shares (protocol `adminAccess`): `Authorization: Bearer <admin key>`; with
 * none set, open only while no API keys are set either, else 403.
 */
export function adminAuth(adminKeys: readonly string[], apiKeysSet: boolean): Middleware {
  const check = adminAccess(adminKeys, apiKeysSet);
  return async (ctx, next) => {
    if (ctx.method === 'OPTIONS') return next();
    const refused = check(ctx.get('authorization'));
    if (refused) throw refused;
    ctx.state.admin = true;
    await next();
  };
}
