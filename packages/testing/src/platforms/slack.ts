import { createHmac } from 'node:crypto';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * Slack as the Events API and the Web API document it: signed event callbacks in, and the
 * answers `chat.postMessage` and `auth.test` give. Signatures use real HMAC keys, never a stub of our verifier.
 */

/** An `event_callback` envelope around a channel `message` event; override either level per test. */
export function slackMessageEvent(event: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  return {
    token: 'XXYYZZ',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: 'Ev0PV52K21',
    event_time: 1_736_942_400,
    authorizations: [{ team_id: 'T0001', user_id: 'U0BOT', is_bot: true }],
    event: {
      type: 'message',
      channel: 'C0123',
      channel_type: 'channel',
      user: 'U0456',
      text: 'What is a monad?',
      ts: '1736942400.000100',
      event_ts: '1736942400.000100',
      blocks: [],
      ...event,
    },
    ...envelope,
  };
}

/** `X-Slack-Signature`: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/** The two headers Slack signs a request with, for a request signed at `signedAt` (Unix ms). */
export function slackSignedHeaders(secret: string, rawBody: Buffer | string, signedAt: number): Record<string, string> {
  const timestamp = String(Math.floor(signedAt / 1000));
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(secret, timestamp, rawBody) };
}

/** A request as Slack sends it, signed at `signedAt` (Unix ms) and received at `now`. */
export function slackRequest(secret: string, body: unknown, options: { now?: number; signedAt?: number } = {}): SignedRequest {
  const now = options.now ?? SAMPLE_NOW;
  const request = jsonRequest(body, {}, now);
  Object.assign(request.headers, slackSignedHeaders(secret, request.rawBody, options.signedAt ?? now));
  return request;
}

/** What `chat.postMessage` answers when the message was posted (HTTP 200). */
export function slackPostedMessage(channel: string, text: string, ts = '1736942401.000200') {
  return { ok: true, channel, ts, message: { type: 'message', text, bot_id: 'B0123', ts } };
}

/**
 * What `auth.test` answers (HTTP 200 either way): the bot's identity for a valid token, or
 * `{ok: false, error}` (`invalid_auth`, `token_revoked`…) for one Slack refuses.
 */
export function slackAuthTest(error?: string) {
  if (error) return { ok: false, error };
  return {
    ok: true,
    url: 'https://acme.slack.com/',
    team: 'Acme',
    user: 'switchboard',
    team_id: 'T0001',
    user_id: 'U0BOT',
    bot_id: 'B0123',
    is_enterprise_install: false,
  };
}
