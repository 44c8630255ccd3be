import { createHmac } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally, theirDecision } from '../test-support/oracle.js';
import type { VerifyConfig } from './mapped-config.js';
import { verifyMappedDelivery } from './verify-mapped-delivery.js';

/**
 * Mapped hooks' GitHub, Standard Webhooks and plain HMAC schemes against the senders' own code:
 * @octokit/webhooks-methods' `verify` (GitHub's Octokit) and standardwebhooks' `Webhook.verify`
 * (the specification's reference library). Ours calls both; these properties hold the wrapper
 * (which header, a missing one, how a failure is answered) to the same decisions, and check the
 * published example vectors.
 */

const NOW_S = 1_736_942_400;

beforeAll(() => {
  // standardwebhooks reads the clock itself (Date.now()); only Date is faked.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW_S * 1000);
});

afterAll(() => {
  vi.useRealTimers();
});

const verify = (request: InboundRequest, config: VerifyConfig) => ourDecision(() => verifyMappedDelivery(request, config));
const request = (headers: InboundRequest['headers'], body: string): InboundRequest => ({
  headers,
  rawBody: Buffer.from(body, 'utf8'),
  now: NOW_S * 1000,
});
const bodies = fc.oneof(fc.json(), fc.string({ unit: 'binary' }), fc.constant(''));

/** A `sha256=<hex>` signature header (GitHub's X-Hub-Signature-256) in its right and wrong forms. */
const hubSignature = fc.constantFrom(
  'valid',
  'valid',
  'valid',
  'other secret',
  'tampered body',
  'uppercase hex',
  'sha1 prefix',
  'no prefix',
  'padded',
  'two signatures',
  'empty',
  'missing',
);

function hubHeader(kind: string, secret: string, body: string): string | undefined {
  const hex = (key = secret, text = body) => createHmac('sha256', key).update(text, 'utf8').digest('hex');
  switch (kind) {
    case 'valid':
      return `sha256=${hex()}`;
    case 'other secret':
      return `sha256=${hex('another secret')}`;
    case 'tampered body':
      return `sha256=${hex(secret, `${body} `)}`;
    case 'uppercase hex':
      return `sha256=${hex().toUpperCase()}`;
    case 'sha1 prefix':
      return `sha1=${hex()}`;
    case 'no prefix':
      return hex();
    case 'padded':
      return `sha256=${hex()} `;
    case 'two signatures':
      return `sha256=${hex('another secret')},sha256=${hex()}`;
    case 'empty':
      return '';
    default:
      return undefined;
  }
}

describe('GitHub deliveries against @octokit/webhooks-methods', () => {
  const secret = "It's a Secret to Everybody";
  const github: VerifyConfig = { scheme: 'github', secret };

  it('decides every generated delivery as Octokit does', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(bodies, hubSignature, async (body, kind) => {
        const header = hubHeader(kind, secret, body);
        const ours = await verify(request(header === undefined ? {} : { 'x-hub-signature-256': header }, body), github);
        const theirs = await theirDecision(() => octokitVerify(secret, body, header as string));
        expect({ ours, body, kind }).toEqual({ ours: theirs, body, kind });
        tally.add(ours);
      }),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });

  it('accepts the example delivery of GitHub’s docs', async () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries ("Testing the webhook payload validation").
    const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await verify(request({ 'x-hub-signature-256': signature }, 'Hello, World!'), github)).toBe(true);
    expect(await octokitVerify(secret, 'Hello, World!', signature)).toBe(true);
  });
});

describe('hmac-sha256 deliveries (sha256=<hex>) against @octokit/webhooks-methods', () => {
  // The same scheme as GitHub's header when configured with its prefix and encoding; Octokit is
  // the nearest official implementation of it.
  const secret = 'hmac-oracle-secret';
  const hmac: VerifyConfig = { scheme: 'hmac-sha256', secret, header: 'x-signature', prefix: 'sha256=', encoding: 'hex' };

  it('decides every generated delivery as Octokit does', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, hubSignature, async (body, kind) => {
        const header = hubHeader(kind, secret, body);
        const ours = await verify(request(header === undefined ? {} : { 'x-signature': header }, body), hmac);
        const theirs = await theirDecision(() => octokitVerify(secret, body, header as string));
        // Octokit refuses an empty payload by contract; the scheme signs whatever body comes, and
        // an empty one can be signed (the hook's template then renders nothing from it).
        const looser = body === '' && kind === 'valid';
        expect({ ours, body, kind }).toEqual({ ours: theirs || looser, body, kind });
      }),
      { numRuns: ORACLE_RUNS },
    );
  });
});

describe('Standard Webhooks deliveries against standardwebhooks', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const standard: VerifyConfig = { scheme: 'standard-webhooks', secret };
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const sign = (id: string, timestamp: string, body: string, signingKey = key) =>
    createHmac('sha256', signingKey).update(`${id}.${timestamp}.${body}`).digest('base64');

  const deliveryCase = fc.record({
    body: bodies,
    id: fc.oneof(fc.constant('msg_p5jXN8AQM9LWM0D4loKWxJek'), fc.string({ minLength: 1, maxLength: 20 })),
    offset: fc.oneof(fc.constantFrom(-301, -300, -299, 299, 300, 301), fc.integer({ min: -100_000, max: 100_000 })),
    timestampForm: fc.constantFrom('plain', 'plain', 'plain', 'word', 'missing'),
    signature: fc.constantFrom(
      'valid',
      'valid',
      'valid',
      'among others',
      'other key',
      'other id',
      'tampered body',
      'v1a',
      'no version',
      'missing',
    ),
  });

  it('decides every generated delivery as the reference library does', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(deliveryCase, async (c) => {
        const seconds = String(NOW_S + c.offset);
        const valid = sign(c.id, seconds, c.body);
        const signature = {
          valid: `v1,${valid}`,
          'among others': `v1,${sign(c.id, seconds, c.body, Buffer.alloc(24))} v1a,${'A'.repeat(43)}= v1,${valid}`,
          'other key': `v1,${sign(c.id, seconds, c.body, Buffer.alloc(24))}`,
          'other id': `v1,${sign(`${c.id}x`, seconds, c.body)}`,
          'tampered body': `v1,${sign(c.id, seconds, `${c.body}x`)}`,
          v1a: `v1a,${valid}`,
          'no version': valid,
          missing: undefined,
        }[c.signature];
        const headers: Record<string, string> = { 'webhook-id': c.id };
        if (c.timestampForm === 'plain') headers['webhook-timestamp'] = seconds;
        if (c.timestampForm === 'word') headers['webhook-timestamp'] = 'yesterday';
        if (signature !== undefined) headers['webhook-signature'] = signature;
        const ours = await verify(request(headers, c.body), standard);
        // Without parsing: the hook parses the body itself, after verifying.
        const theirs = await theirDecision(() => new Webhook(secret).verify(c.body, headers, { jsonParse: false }));
        expect({ ours, case: c }).toEqual({ ours: theirs, case: c });
        tally.add(ours);
      }),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });

  it('accepts the test vector of the Standard Webhooks specification', async () => {
    // https://github.com/standard-webhooks/standard-webhooks (spec/standard-webhooks.md and the
    // libraries' tests): this secret, id, timestamp and body sign as below.
    vi.setSystemTime(1_614_265_330_000);
    try {
      const headers = {
        'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        'webhook-timestamp': '1614265330',
        'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      };
      expect(await verify(request(headers, '{"test": 2432232314}'), standard)).toBe(true);
    } finally {
      vi.setSystemTime(NOW_S * 1000);
    }
  });
});
