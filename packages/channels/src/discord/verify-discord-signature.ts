import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Builds the verification key from the application's public key as Discord shows it (64 hex digits). */
export function createDiscordPublicKey(publicKeyHex: string): KeyObject {
  const raw = Buffer.from(publicKeyHex, 'hex');
  if (raw.length !== 32) throw new RangeError('A Discord public key is 32 bytes (64 hex digits).');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/**
 * Verifies `X-Signature-Ed25519` (hex) over `X-Signature-Timestamp` + the raw body. Discord
 * sends deliberately bad signatures to check that endpoints refuse them.
 *
 * @throws AppError 401 `invalid_signature` when a header is missing or the signature is wrong.
 */
export function verifyDiscordSignature(request: InboundRequest, key: KeyObject): void {
  const signature = headerValue(request.headers, 'x-signature-ed25519');
  const timestamp = headerValue(request.headers, 'x-signature-timestamp');
  if (!signature || !timestamp) {
    throw unauthorized('Missing X-Signature-Ed25519 or X-Signature-Timestamp header.', 'invalid_signature');
  }
  // Buffer.from(…, 'hex') silently drops bad digits, so the shape is checked first.
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) throw unauthorized('Invalid Discord signature.', 'invalid_signature');
  const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), request.rawBody]);
  let valid: boolean;
  try {
    valid = verify(null, message, key, Buffer.from(signature, 'hex'));
  } catch {
    valid = false;
  }
  if (!valid) throw unauthorized('Invalid Discord signature.', 'invalid_signature');
}
