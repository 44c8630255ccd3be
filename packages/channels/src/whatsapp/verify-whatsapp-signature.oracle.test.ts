import { createHmac } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally, theirDecision } from '../test-support/oracle.js';
import { verifyWhatsAppSignature } from './verify-whatsapp-signature.js';

/**
 * Meta publishes no verifier for webhook payloads, only the scheme
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads):
 * an HMAC-SHA256 of the payload under the App Secret, hex, in `X-Hub-Signature-256`, preceded by
 * `sha256=`. That is exactly GitHub's `X-Hub-Signature-256`, so @octokit/webhooks-methods'
 * `verify` serves as the reference implementation; Meta publishes no example vector.
 */

const APP_SECRET = 'whatsapp-app-secret-0123456789';

const hex = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

describe('verifyWhatsAppSignature against the X-Hub-Signature-256 scheme (Octokit)', () => {
  it('decides every generated request as the reference does', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        // Meta sends JSON with non-ASCII escaped (\u00e4) and signs those bytes; raw UTF-8 is tried too.
        fc.oneof(
          fc
            .json()
            .map((text) =>
              JSON.stringify(JSON.parse(text)).replace(
                /[\u007f-\uffff]/g,
                (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
              ),
            ),
          fc.string({ unit: 'binary', minLength: 1 }),
        ),
        fc.constantFrom(
          'valid',
          'valid',
          'valid',
          'other secret',
          'tampered',
          'uppercase',
          'no prefix',
          'sha1 prefix',
          'padded',
          'missing',
        ),
        async (text, kind) => {
          const body = Buffer.from(text, 'utf8');
          const valid = hex(APP_SECRET, body);
          const header = {
            valid: `sha256=${valid}`,
            'other secret': `sha256=${hex('another-app-secret', body)}`,
            tampered: `sha256=${hex(APP_SECRET, Buffer.concat([body, Buffer.from(' ')]))}`,
            uppercase: `sha256=${valid.toUpperCase()}`,
            'no prefix': valid,
            'sha1 prefix': `sha1=${valid}`,
            padded: ` sha256=${valid}`,
            missing: undefined,
          }[kind];
          const request: InboundRequest = {
            headers: header === undefined ? {} : { 'x-hub-signature-256': header },
            rawBody: body,
            now: Date.now(),
          };
          const ours = await ourDecision(() => verifyWhatsAppSignature(request, APP_SECRET));
          const theirs = await theirDecision(() => octokitVerify(APP_SECRET, text, header as string));
          expect({ ours, text, kind }).toEqual({ ours: theirs, text, kind });
          tally.add(ours);
        },
      ),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
