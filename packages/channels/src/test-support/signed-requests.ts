import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { InboundRequest } from '../channel.js';

/**
 * Requests signed the way each platform signs them, with real keys made here: tests exercise the
 * same crypto the platforms use, never a stub of our own verifier.
 */

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

export function jsonRequest(body: unknown, headers: InboundRequest['headers'] = {}, now = NOW): InboundRequest {
  const rawBody = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return { headers: { 'content-type': 'application/json', ...headers }, rawBody, now };
}

export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/** A request as Slack sends it, signed at `signedAt` (Unix ms) and received at `now`. */
export function slackRequest(secret: string, body: unknown, options: { now?: number; signedAt?: number } = {}): InboundRequest {
  const now = options.now ?? NOW;
  const timestamp = String(Math.floor((options.signedAt ?? now) / 1000));
  const request = jsonRequest(body, {}, now);
  request.headers['x-slack-request-timestamp'] = timestamp;
  request.headers['x-slack-signature'] = slackSignature(secret, timestamp, request.rawBody);
  return request;
}

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

/** An interaction as Discord sends it: Ed25519 over timestamp + body. */
export function discordRequest(privateKey: KeyObject, body: unknown, timestamp = String(Math.floor(NOW / 1000))): InboundRequest {
  const request = jsonRequest(body);
  const signature = sign(null, Buffer.concat([Buffer.from(timestamp), request.rawBody]), privateKey).toString('hex');
  request.headers['x-signature-ed25519'] = signature;
  request.headers['x-signature-timestamp'] = timestamp;
  return request;
}
