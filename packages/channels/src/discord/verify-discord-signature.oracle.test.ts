import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { verifyKey } from 'discord-interactions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally, theirDecision } from '../test-support/oracle.js';
import { createDiscordPublicKey, verifyDiscordSignature } from './verify-discord-signature.js';

/**
 * Our Discord verifier against Discord's own: discord-interactions' `verifyKey(rawBody,
 * signature, timestamp, publicKey)` (the package Discord's docs point to for verifying
 * interactions: https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers).
 * Discord publishes no example vector; the keys are real Ed25519 pairs.
 */

const app = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
/** The 32-byte public key as the Developer Portal shows it: 64 hex digits. */
const PUBLIC_KEY_HEX = app.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
const publicKey = createDiscordPublicKey(PUBLIC_KEY_HEX);

const signHex = (key: KeyObject, timestamp: string, body: Buffer) =>
  sign(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), key).toString('hex');

const discordCase = fc.record({
  body: fc.oneof(
    fc.json().map((text) => Buffer.from(text, 'utf8')),
    fc.string({ unit: 'binary' }).map((text) => Buffer.from(text, 'utf8')),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.alloc(0)),
  ),
  timestamp: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('', 'not a time', 'ünïcödé', ' 1736942400 ') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  signature: fc.constantFrom(
    'valid',
    'valid',
    'valid',
    'uppercase hex',
    'other key',
    'tampered body',
    'other timestamp',
    'truncated',
    'one byte more',
    'not hex',
    'padded',
    'base64',
    'missing',
  ),
});

type DiscordCase = typeof discordCase extends fc.Arbitrary<infer T> ? T : never;

function signatureFor(c: DiscordCase): string | undefined {
  const timestamp = c.timestamp ?? '';
  const valid = signHex(app.privateKey, timestamp, c.body);
  switch (c.signature) {
    case 'valid':
      return valid;
    case 'uppercase hex':
      return valid.toUpperCase();
    case 'other key':
      return signHex(stranger.privateKey, timestamp, c.body);
    case 'tampered body':
      return signHex(app.privateKey, timestamp, Buffer.concat([c.body, Buffer.from('x')]));
    case 'other timestamp':
      return signHex(app.privateKey, `${timestamp}1`, c.body);
    case 'truncated':
      return valid.slice(0, -2);
    case 'one byte more':
      return `${valid}00`;
    case 'not hex':
      return `zz${valid.slice(2)}`;
    case 'padded':
      return ` ${valid}`;
    case 'base64':
      return Buffer.from(valid, 'hex').toString('base64');
    case 'missing':
      return undefined;
  }
}

describe('verifyDiscordSignature against discord-interactions', () => {
  it('decides every generated request as verifyKey does, except where Discord’s docs ask for more', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(discordCase, async (c) => {
        const signature = signatureFor(c);
        const headers: InboundRequest['headers'] = {};
        if (signature !== undefined) headers['x-signature-ed25519'] = signature;
        if (c.timestamp !== undefined) headers['x-signature-timestamp'] = c.timestamp;
        const request: InboundRequest = { headers, rawBody: c.body, now: Date.now() };
        const ours = await ourDecision(() => verifyDiscordSignature(request, publicKey));
        const theirs = await theirDecision(() => verifyKey(c.body, signature as string, c.timestamp as string, PUBLIC_KEY_HEX));
        // Where we refuse what verifyKey lets through: a request without its timestamp (the docs
        // name both headers as sent with every interaction; verifyKey reads a missing one as
        // empty), and a signature that is not hex (verifyKey reads each bad pair of digits as 0).
        const stricter = !c.timestamp || c.signature === 'not hex';
        expect({ ours, case: c }).toEqual({ ours: theirs && !stricter, case: c });
        tally.add(ours);
      }),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
