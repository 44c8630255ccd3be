import { createHmac } from 'node:crypto';
import { unauthorized } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { safeEqual } from '../safe-equal.js';

/** Slack's own advice: refuse requests more than five minutes old, so a captured one cannot be replayed. */
export const SLACK_MAX_SKEW_SECONDS = 5 * 60;

/**
 * Verifies `X-Slack-Signature`: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` under the
 * signing secret, with `X-Slack-Request-Timestamp` within five minutes of `request.now`.
 *
 * @throws AppError 401 `invalid_signature` when a header is missing, stale or does not match.
 */
export function verifySlackSignature(request: InboundRequest, signingSecret: string): void {
  const signature = headerValue(request.headers, 'x-slack-signature');
  const timestamp = headerValue(request.headers, 'x-slack-request-timestamp');
  if (!signature || !timestamp) {
    throw unauthorized('Missing X-Slack-Signature or X-Slack-Request-Timestamp header.', 'invalid_signature');
  }
  // Whole seconds in their one spelling: Bolt signs over `Number(header)` written back, so for any
  // other spelling ("0123", " 123") the two would hash different text.
  if (!/^(0|[1-9]\d{0,11})$/.test(timestamp)) {
    throw unauthorized('Invalid X-Slack-Request-Timestamp header.', 'invalid_signature');
  }
  // Whole seconds of our clock, as Bolt's `Math.floor(nowMs / 1000)`; either direction (Slack's docs take the absolute value).
  const skew = Math.abs(Math.floor(request.now / 1000) - Number(timestamp));
  if (skew > SLACK_MAX_SKEW_SECONDS) {
    throw unauthorized('The Slack request timestamp is more than five minutes off.', 'invalid_signature');
  }
  const expected = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(request.rawBody).digest('hex')}`;
  if (!safeEqual(signature, expected)) throw unauthorized('Invalid Slack signature.', 'invalid_signature');
}
