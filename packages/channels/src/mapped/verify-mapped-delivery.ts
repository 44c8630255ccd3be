import { verify as verifyGitHub } from '@octokit/webhooks-methods';
import { unauthorized } from '@switchboard/protocol';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { InboundRequest } from '../definition.js';
import { verifyGenericToken } from '../generic/verify-generic-token.js';
import { headerValue } from '../inbound.js';
import type { VerifyConfig } from './mapped-config.js';
import { verifyHmacSignature } from './verify-hmac-signature.js';
import { verifyStripeSignature } from './verify-stripe-signature.js';

/** Where the delivery id is found once the body is parsed (Stripe keeps it in the event). */
export type DeliveryId = { header: string } | { bodyField: 'id' } | null;

/**
 * Verifies one delivery with its scheme, through the platform's own library where there is one
 * (GitHub: @octokit/webhooks-methods; Standard Webhooks: standardwebhooks), and says where its
 * delivery id is: remembered for a day, so a replay is not answered twice.
 *
 * @throws AppError 401 `invalid_signature` / `invalid_token` when the delivery is not the sender's, or is stale.
 */
export async function verifyMappedDelivery(request: InboundRequest, verify: VerifyConfig): Promise<DeliveryId> {
  switch (verify.scheme) {
    case 'token':
      verifyGenericToken(request, verify.token);
      return { header: 'idempotency-key' };
    case 'github': {
      const signature = headerValue(request.headers, 'x-hub-signature-256');
      if (!signature) throw unauthorized('Missing X-Hub-Signature-256 header.', 'invalid_signature');
      const valid = await verifyGitHub(verify.secret, request.rawBody.toString('utf8'), signature).catch(() => false);
      if (!valid) throw unauthorized('Invalid GitHub signature.', 'invalid_signature');
      return { header: 'x-github-delivery' };
    }
    case 'stripe':
      verifyStripeSignature(request, verify.secret, verify.toleranceSeconds);
      return { bodyField: 'id' };
    case 'standard-webhooks':
      verifyStandardWebhook(request, verify.secret);
      return { header: 'webhook-id' };
    case 'hmac-sha256':
      verifyHmacSignature(request, verify);
      return verify.idHeader ? { header: verify.idHeader } : null;
  }
}

/** The library checks the signature and that `webhook-timestamp` is within five minutes. */
function verifyStandardWebhook(request: InboundRequest, secret: string): void {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headerValue(request.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  try {
    new Webhook(secret).verify(request.rawBody.toString('utf8'), headers, { jsonParse: false });
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw unauthorized('Invalid webhook signature.', 'invalid_signature');
    // Its messages name what failed ("Message timestamp too old", "Missing required headers"), never the secret.
    throw unauthorized(`Invalid Standard Webhooks delivery: ${err.message}.`, 'invalid_signature');
  }
}
