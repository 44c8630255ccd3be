import { createHmac } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

/** Stripe's default tolerance (`DEFAULT_TOLERANCE` of stripe-node's `constructEvent`). */
export const STRIPE_DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Verifies `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=…]` as stripe-node's
 * `webhooks.constructEvent` does: HMAC-SHA256 of `<t>.<raw body>` under the endpoint secret (the
 * whole `whsec_…` string is the key), any `v1` may match, items read as Stripe reads them
 * (split on `,` and `=`, nothing trimmed), an empty body refused, and the timestamp within the
 * tolerance in whole seconds — in either direction here, where Stripe checks only the past, so a
 * delivery stamped ahead cannot be replayed for longer; and `t` must be digits, where Stripe
 * takes what `parseInt` makes of it. A faithful copy rather than the SDK: the `stripe` package
 * is the whole API client (several MB) for these few lines; `verify-stripe-signature.oracle.test.ts`
 * holds the two to the same decisions.
 *
 * @throws AppError 401 `invalid_signature` when the header is missing, malformed, stale or matches no signature.
 */
export function verifyStripeSignature(request: InboundRequest, secret: string, toleranceSeconds: number): void {
  const header = headerValue(request.headers, 'stripe-signature');
  if (!header) throw unauthorized('Missing Stripe-Signature header.', 'invalid_signature');
  if (request.rawBody.length === 0) throw unauthorized('The Stripe delivery has no body.', 'invalid_signature');
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const [key, value] = item.split('=', 2);
    if (key === 't') timestamp = value;
    if (key === 'v1' && value !== undefined) signatures.push(value);
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) {
    throw unauthorized('Malformed Stripe-Signature header: expected t=… and v1=….', 'invalid_signature');
  }
  // Stripe signs over the number it parsed ("0123" is signed as "123").
  const seconds = Number(timestamp);
  if (Math.abs(Math.floor(request.now / 1000) - seconds) > toleranceSeconds) {
    throw unauthorized('The Stripe-Signature timestamp is outside the tolerance.', 'invalid_signature');
  }
  const expected = createHmac('sha256', secret).update(`${seconds}.`).update(request.rawBody).digest('hex');
  // Every candidate is compared, so the time taken does not tell which one matched.
  const matches = signatures.map((signature) => safeEqual(signature, expected));
  if (!matches.includes(true)) throw unauthorized('Invalid Stripe signature.', 'invalid_signature');
}
