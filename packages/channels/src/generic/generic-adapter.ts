import type { GenericHookConfig } from '@switchboard/config';
import { parseRetryAfter } from '@switchboard/protocol';
import type { DeliveryMeta, Inbound, InboundMessage, InboundRequest } from '../channel.js';
import { redact, statusFailure } from '../http.js';
import { PlatformAdapter } from '../platform-adapter.js';
import { parseGenericRequest } from './parse-generic-request.js';
import { verifyGenericToken } from './verify-generic-token.js';

/**
 * The generic JSON hook: callers authenticate with the hook token and, when `replyUrl` is
 * configured, receive the reply as a POST `{id, hook, to, text, model, created}`.
 */
export class GenericAdapter extends PlatformAdapter<GenericHookConfig> {
  readonly type = 'generic' as const;
  /** A receiver has no length limit we know of, so the reply goes out whole. */
  protected readonly textLimit = Number.POSITIVE_INFINITY;
  // Only the host: a receiver URL may carry its own secret in the path or query.
  readonly #label = this.config.replyUrl ? `Hook '${this.name}': reply to ${new URL(this.config.replyUrl).host}` : '';

  receive(request: InboundRequest): Inbound {
    verifyGenericToken(request, this.config.token);
    return parseGenericRequest(request);
  }

  /** POSTs the part to `replyUrl`; without one, replies are only read back through the API. */
  async deliverPart(message: InboundMessage, part: string, index: number, meta: DeliveryMeta): Promise<void> {
    const { replyUrl } = this.config;
    if (!replyUrl) return;
    const reply = await this.http.send({
      label: this.#label,
      method: 'POST',
      url: replyUrl,
      // Each part is its own delivery; the receiver may drop any it has already seen.
      headers: { 'idempotency-key': index === 0 ? meta.jobId : `${meta.jobId}:${index}` },
      body: { id: meta.jobId, hook: meta.hook, to: message.from, text: part, model: meta.model, created: meta.created },
    });
    if (reply.status >= 200 && reply.status < 300) return;
    const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
    throw statusFailure(this.#label, reply.status, redact(reply.text, [this.config.token]), retryAfterMs);
  }
}
