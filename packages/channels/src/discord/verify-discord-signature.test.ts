import { discordKeys, discordRequest } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { createDiscordPublicKey, verifyDiscordSignature } from './verify-discord-signature.js';

const keys = discordKeys();
const key = createDiscordPublicKey(keys.publicKeyHex);
const PING = { id: '1', application_id: '2', type: 1, token: 't', version: 1 };

function expectRefused(run: () => void) {
  const error = appErrorFrom(run);
  expect(error.status).toBe(401);
  expect(error.code).toBe('invalid_signature');
}

describe('verifyDiscordSignature', () => {
  it('accepts an interaction signed with the application key', () => {
    expect(() => verifyDiscordSignature(discordRequest(keys.privateKey, PING), key)).not.toThrow();
  });

  it('answers 401 for a signature made with another key', () => {
    expectRefused(() => verifyDiscordSignature(discordRequest(discordKeys().privateKey, PING), key));
  });

  it('answers 401 when the body was tampered with after signing', () => {
    const request = discordRequest(keys.privateKey, PING);
    request.rawBody = Buffer.from(request.rawBody.toString('utf8').replace('"type":1', '"type":2'));
    expectRefused(() => verifyDiscordSignature(request, key));
  });

  it('answers 401 when the timestamp was changed after signing', () => {
    const request = discordRequest(keys.privateKey, PING, '1736942400');
    request.headers['x-signature-timestamp'] = '1736942401';
    expectRefused(() => verifyDiscordSignature(request, key));
  });

  it('answers 401 when either header is missing', () => {
    const noSignature = discordRequest(keys.privateKey, PING);
    delete noSignature.headers['x-signature-ed25519'];
    expectRefused(() => verifyDiscordSignature(noSignature, key));
    const noTimestamp = discordRequest(keys.privateKey, PING);
    delete noTimestamp.headers['x-signature-timestamp'];
    expectRefused(() => verifyDiscordSignature(noTimestamp, key));
  });

  it('answers 401 for a signature that is not 64 bytes of hex', () => {
    for (const signature of ['abcd', 'zz'.repeat(64), `${'ab'.repeat(64)}00`]) {
      const request = discordRequest(keys.privateKey, PING);
      request.headers['x-signature-ed25519'] = signature;
      expectRefused(() => verifyDiscordSignature(request, key));
    }
  });

  it('refuses to build a key from the wrong number of bytes', () => {
    expect(() => createDiscordPublicKey('abcd')).toThrow(RangeError);
  });
});
