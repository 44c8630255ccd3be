import { AppError, invalidRequest } from '@switchboard/protocol';
import type { HttpAnswer } from '../definition.js';
import { safeEqual } from '../safe-equal.js';

/**
 * Meta's subscription handshake: `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`
 * is answered with the challenge, as plain text, when the verify token is ours.
 *
 * @throws AppError 403 `invalid_token` for any other mode or token.
 */
export function answerWhatsAppHandshake(query: URLSearchParams, verifyToken: string): HttpAnswer {
  const mode = query.get('hub.mode');
  const token = query.get('hub.verify_token') ?? '';
  const challenge = query.get('hub.challenge') ?? '';
  if (mode !== 'subscribe' || !safeEqual(token, verifyToken)) {
    throw new AppError('The verify token does not match.', { status: 403, type: 'authentication_error', code: 'invalid_token' });
  }
  // Echoed as text; bounded and printable so the answer can never carry markup or a header break.
  if (!/^[\x21-\x7e]{1,256}$/.test(challenge)) {
    throw invalidRequest("Invalid 'hub.challenge': 1 to 256 printable characters.", 'hub.challenge');
  }
  return { status: 200, body: challenge };
}
