import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * Discord as the interactions endpoint and the webhook API document them: Ed25519-signed
 * interactions in, the message objects that edits and follow-ups answer with, and the
 * application object `GET /applications/@me` answers a bot token with. Keys are real,
 * made here, so tests exercise the same crypto Discord uses.
 */

export interface DiscordKeys {
  privateKey: KeyObject;
  /** The raw 32-byte public key in hex, as the Developer Portal shows it. */
  publicKeyHex: string;
}

export function discordKeys(): DiscordKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  return { privateKey, publicKeyHex };
}

/** `X-Signature-Ed25519` (hex, over timestamp + raw body) and `X-Signature-Timestamp`. */
export function discordSignedHeaders(privateKey: KeyObject, rawBody: Buffer, timestamp: string): Record<string, string> {
  const signature = sign(null, Buffer.concat([Buffer.from(timestamp), rawBody]), privateKey).toString('hex');
  return { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp };
}

/** An interaction as Discord sends it, signed with `privateKey`. */
export function discordRequest(
  privateKey: KeyObject,
  body: unknown,
  timestamp = String(Math.floor(SAMPLE_NOW / 1000)),
): SignedRequest {
  const request = jsonRequest(body);
  Object.assign(request.headers, discordSignedHeaders(privateKey, request.rawBody, timestamp));
  return request;
}

/** The PING Discord sends to check an interactions endpoint. */
export function discordPing(overrides: Record<string, unknown> = {}) {
  return {
    id: '1329481234567890000',
    application_id: '1100000000000000001',
    type: 1,
    token: 'ping-token',
    version: 1,
    ...overrides,
  };
}

/** A guild slash command `/ask prompt:<text>`; override any top-level field per test. */
export function discordCommand(overrides: Record<string, unknown> = {}) {
  return {
    id: '1329481234567890123',
    application_id: '1100000000000000001',
    type: 2,
    token: 'aW50ZXJhY3Rpb246MTMyOTQ4MTIzNDU2Nzg5MDEyMzpzZWNyZXQ',
    version: 1,
    guild_id: '900000000000000001',
    channel_id: '900000000000000002',
    channel: { id: '900000000000000002', type: 0 },
    member: { user: { id: '800000000000000003', username: 'ada' }, roles: [] },
    data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: 'What is a monad?' }] },
    locale: 'en-US',
    ...overrides,
  };
}

/** The message object webhook edits (`PATCH …/messages/@original`) and follow-ups answer with. */
export function discordMessage(content: string, overrides: Record<string, unknown> = {}) {
  return {
    id: '1329481299999999999',
    type: 20,
    content,
    channel_id: '900000000000000002',
    author: { id: '1100000000000000001', username: 'Switchboard', bot: true },
    attachments: [],
    embeds: [],
    mentions: [],
    timestamp: '2025-01-15T12:00:01.000000+00:00',
    edited_timestamp: null,
    flags: 0,
    ...overrides,
  };
}

/** What `GET /applications/@me` answers a valid bot token with (HTTP 200). */
export function discordApplication(id: string, verifyKeyHex: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    name: 'Switchboard',
    icon: null,
    description: '',
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: verifyKeyHex,
    flags: 0,
    bot: { id, username: 'Switchboard', discriminator: '0', bot: true },
    ...overrides,
  };
}

/** Discord's answer to a request with a token it refuses (HTTP 401). */
export function discordUnauthorized() {
  return { message: '401: Unauthorized', code: 0 };
}
