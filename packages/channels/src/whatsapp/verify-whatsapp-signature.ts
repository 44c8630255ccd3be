import { createHmac } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

/**
 * Verifies `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body under the app
 * secret, compared in constant time. Meta signs no timestamp, so a replay is caught by the
 * message ids' dedupe instead.
 *
 * @throws AppError 401 `invalid_signature` when the header is missing or does not match.
 */
export function verifyWhatsAppSignature(request: InboundRequest, appSecret: string): void {
  const signature = headerValue(request.headers, 'x-hub-signature-256');
  if (!signature) throw unauthorized('Missing X-Hub-Signature-256 header.', 'invalid_signature');
  const expected = `sha256=${createHmac('sha256', appSecret).update(request.rawBody).digest('hex')}`;
  if (!safeEqual(signature, expected)) throw unauthorized('Invalid X-Hub-Signature-256 signature.', 'invalid_signature');
}
