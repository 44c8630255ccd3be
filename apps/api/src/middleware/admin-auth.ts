import { AppError, adminAccess } from '@switchboard/protocol';
import type { Context } from 'koa';

/**
 * Guards the operator's routes (`/admin/*`, `/metrics`, the dashboard's data) with `adminKeys`, by
 * the rule every process shares (protocol `adminAccess`): `Authorization: Bearer <admin key>`; with
 * none set, open only while no API keys are set either, else 403.
 *
 * `browserLogin` (Bull Board, a page a browser opens by URL and which cannot add a header) also
 * takes HTTP Basic credentials whose password is an admin key (any user name), and asks for them
 * with `WWW-Authenticate: Basic`, so the browser prompts once and sends them on every request.
 */
export function adminAuth(
  adminKeys: readonly string[],
  apiKeysSet: boolean,
  options: { browserLogin?: boolean } = {},
): (ctx: Context) => void {
  const check = adminAccess(adminKeys, apiKeysSet);
  // Not a middleware: the app's policy step calls it, and it throws its refusal.
  return (ctx) => {
    if (ctx.method === 'OPTIONS') return;
    const authorization = ctx.get('authorization');
    const basic = options.browserLogin ? basicPassword(authorization) : undefined;
    const refused = check(basic === undefined ? authorization : `Bearer ${basic}`);
    if (refused) throw options.browserLogin && refused.status === 401 ? askForLogin(refused) : refused;
    ctx.state.admin = true;
  };
}

/** The same refusal, with the header that makes a browser prompt for Basic credentials. */
function askForLogin(refused: AppError): AppError {
  return new AppError(refused.message, {
    status: 401,
    type: 'authentication_error',
    code: 'invalid_admin_key',
    headers: { 'WWW-Authenticate': 'Basic realm="Switchboard admin", charset="UTF-8"' },
  });
}

/** The password of `Authorization: Basic base64(user:password)`. */
function basicPassword(authorization: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
}
