import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, unauthorized } from './errors.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The rule of the operator's routes (`/admin/*`, `/metrics`, the dashboard, the worker's metrics
 * server), one for every process: `adminKeys`, given as `Authorization: Bearer <key>` (never in
 * the query string, which reaches logs), compared as SHA-256 digests in constant time. API keys
 * never open them. With no admin keys: open when no API keys are set either (a local setup), else
 * 403, so turning API keys on never leaves the operator's view open by accident.
 *
 * @returns A check of the `Authorization` header: null when it may pass, else the error to answer.
 */
export function adminAccess(
  adminKeys: readonly string[],
  apiKeysSet: boolean,
): (authorization: string | undefined) => AppError | null {
  const known = adminKeys.map(digest);
  return (authorization) => {
    if (known.length === 0) {
      if (!apiKeysSet) return null;
      return new AppError('Admin routes are off: API keys are set but no admin keys (set adminKeys or SWITCHBOARD_ADMIN_KEYS).', {
        status: 403,
        type: 'permission_error',
        code: 'admin_keys_not_configured',
      });
    }
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!given) return unauthorized('Missing admin key: send Authorization: Bearer <admin key>.', 'invalid_admin_key');
    const d = digest(given);
    let match = false;
    for (const key of known) if (timingSafeEqual(d, key)) match = true;
    return match ? null : unauthorized('Incorrect admin key provided.', 'invalid_admin_key');
  };
}
