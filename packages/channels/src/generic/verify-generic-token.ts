import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

/**
 * Checks the hook token, sent as `Authorization: Bearer <token>` (RFC 6750 §2.1: the scheme in any
 * case, then spaces) or `X-Hook-Token: <token>`.
 * Either header may carry it, so a proxy that sets its own `Authorization` does not lock callers out.
 *
 * @throws AppError 401 `invalid_token` when neither header holds the token.
 */
export function verifyGenericToken(request: InboundRequest, token: string): void {
  const candidates: string[] = [];
  const authorization = headerValue(request.headers, 'authorization');
  const bearer = authorization ? /^Bearer +(.+)$/i.exec(authorization.trim()) : null;
  if (bearer?.[1]) candidates.push(bearer[1]);
  const hookToken = headerValue(request.headers, 'x-hook-token');
  if (hookToken) candidates.push(hookToken.trim());
  if (candidates.length === 0) {
    throw unauthorized('Missing hook token: send Authorization: Bearer <token> or X-Hook-Token.', 'invalid_token');
  }
  // Every candidate is compared, so the time taken does not depend on which header matched.
  const matches = candidates.map((candidate) => safeEqual(candidate, token));
  if (!matches.includes(true)) throw unauthorized('Invalid hook token.', 'invalid_token');
}
