import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally, theirDecision } from '../test-support/oracle.js';
import { STRIPE_DEFAULT_TOLERANCE_SECONDS, verifyStripeSignature } from './verify-stripe-signature.js';

/**
 * Our Stripe verifier against Stripe's own: stripe-node's `webhooks.signature.verifyHeader`
 * (what `webhooks.constructEvent` calls before it parses the event), given our clock as `receivedAt`.
 */

const SECRET = 'whsec_oracle_0123456789abcdef';
const TOLERANCE = STRIPE_DEFAULT_TOLERANCE_SECONDS;
const NOW_MS = 1_736_942_400_000 + 371;
const NOW_S = Math.floor(NOW_MS / 1000);
const stripe = new Stripe('sk_test_oracle_not_used');
// Null only in stripe-node's builds for platforms without a crypto provider; Node has one.
const stripeSignature = stripe.webhooks.signature!;

const hmac = (secret: string, signed: string) => createHmac('sha256', secret).update(signed).digest('hex');

const stripeCase = fc.record({
  // Stripe sends UTF-8 JSON; stripe-node decodes the body as UTF-8 before it hashes it.
  body: fc.oneof(fc.json(), fc.string({ unit: 'binary' }), fc.constant('')),
  offset: fc.oneof(
    fc.constantFrom(-301, -300, -299, 299, 300, 301),
    fc.integer({ min: -60, max: 60 }),
    fc.integer({ min: -100_000, max: 100_000 }),
  ),
  timestampForm: fc.constantFrom('plain', 'plain', 'plain', 'leading zero', 'suffix', 'empty', 'missing', 'two, last wins'),
  signature: fc.constantFrom(
    'valid',
    'valid',
    'valid',
    'among others',
    'other secret',
    'tampered body',
    'uppercase hex',
    'v0 only',
    'space after comma',
    'padded value',
    'trailing =junk',
    'missing header',
    'empty header',
  ),
});

type StripeCase = typeof stripeCase extends fc.Arbitrary<infer T> ? T : never;

function headerFor(c: StripeCase): string | undefined {
  const seconds = NOW_S + c.offset;
  const t = {
    plain: `t=${seconds}`,
    'leading zero': `t=0${seconds}`,
    suffix: `t=${seconds}s`,
    empty: 't=',
    missing: '',
    'two, last wins': `t=${seconds - 1000},t=${seconds}`,
  }[c.timestampForm];
  // Signed over the number, as Stripe signs: for "leading zero" and "suffix" that is what stripe-node re-reads.
  const valid = hmac(SECRET, `${seconds}.${c.body}`);
  const v1 = {
    valid: `v1=${valid}`,
    'among others': `v1=${'0'.repeat(64)},v1=${valid},v0=${'1'.repeat(64)}`,
    'other secret': `v1=${hmac('whsec_another', `${seconds}.${c.body}`)}`,
    'tampered body': `v1=${hmac(SECRET, `${seconds}.${c.body}{}`)}`,
    'uppercase hex': `v1=${valid.toUpperCase()}`,
    'v0 only': `v0=${valid}`,
    'space after comma': ` v1=${valid}`,
    'padded value': `v1=${valid} `,
    'trailing =junk': `v1=${valid}=junk`,
    'missing header': undefined,
    'empty header': '',
  }[c.signature];
  if (v1 === undefined || v1 === '') return v1;
  return [t, v1].filter(Boolean).join(',');
}

describe('verifyStripeSignature against stripe-node', () => {
  it('decides every generated delivery as stripe-node does, except where we are stricter', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(stripeCase, async (c) => {
        const header = headerFor(c);
        const headers: InboundRequest['headers'] = header === undefined ? {} : { 'stripe-signature': header };
        const request: InboundRequest = { headers, rawBody: Buffer.from(c.body, 'utf8'), now: NOW_MS };
        const ours = await ourDecision(() => verifyStripeSignature(request, SECRET, TOLERANCE));
        const theirs = await theirDecision(() =>
          // The body as text, which stripe-node would decode a Buffer to: given text, it refuses an empty
          // payload ("No webhook payload was provided."), as constructEvent refuses it in any form (not JSON).
          stripeSignature.verifyHeader(c.body, header as string, SECRET, TOLERANCE, undefined, NOW_MS),
        );
        // Where we refuse what stripe-node lets through: a timestamp more than the tolerance ahead
        // (stripe-node checks only the age; https://docs.stripe.com/webhooks#replay-attacks
        // describes the tolerance as protection against replays, which a future stamp would
        // extend), and a `t` that is not digits (stripe-node signs over parseInt of it).
        const stricter = c.offset > TOLERANCE || c.timestampForm === 'suffix' || c.timestampForm === 'empty';
        expect({ ours, case: c }).toEqual({ ours: theirs && !stricter, case: c });
        tally.add(ours);
      }),
      {
        numRuns: ORACLE_RUNS,
        // Mismatches found on earlier code, always run.
        examples: [
          [{ body: '', offset: 0, timestampForm: 'plain', signature: 'valid' }],
          [{ body: '{}', offset: 0, timestampForm: 'plain', signature: 'space after comma' }],
          [{ body: '{}', offset: 0, timestampForm: 'leading zero', signature: 'valid' }],
          [{ body: '{}', offset: -300, timestampForm: 'plain', signature: 'valid' }],
        ],
      },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });

  it('accepts a header stripe-node generates for its own tests', async () => {
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid' });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: NOW_S });
    const request: InboundRequest = { headers: { 'stripe-signature': header }, rawBody: Buffer.from(payload), now: NOW_MS };
    expect(await ourDecision(() => verifyStripeSignature(request, SECRET, TOLERANCE))).toBe(true);
  });
});
