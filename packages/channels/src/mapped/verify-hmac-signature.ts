import { createHmac } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

export interface HmacScheme {
  secret: string;
  /** The header holding the signature. */
  header: string;
  /** Text before the digest (`sha256=`), if the sender puts one. */
  prefix: string;
  encoding: 'hex' | 'base64';
}

/**
 * Verifies a plain HMAC-SHA256 of the raw body sent in a header of the caller's choosing — the
 * scheme most webhook senders without a library of their own use (no timestamp: replays are
 * refused by the delivery id, when the sender names one).
 *
 * @throws AppError 401 `invalid_signature` when the header is missing or does not match.
 */
export function verifyHmacSignature(request: InboundRequest, scheme: HmacScheme): void {
  const given = headerValue(request.headers, scheme.header);
  if (!given) throw unauthorized(`Missing ${scheme.header} header.`, 'invalid_signature');
  const digest = createHmac('sha256', scheme.secret).update(request.rawBody).digest(scheme.encoding);
  if (!safeEqual(given, `${scheme.prefix}${digest}`)) throw unauthorized('Invalid signature.', 'invalid_signature');
}
