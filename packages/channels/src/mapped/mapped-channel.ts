import { parseRetryAfter, unauthorized } from '@switchboard/protocol';
import { defineChannel } from '../definition.js';
import { verifyGenericToken } from '../generic/verify-generic-token.js';
import { redact, statusFailure } from '../http.js';
import { parseJsonBody } from '../inbound.js';
import { callerDelivery, hookDelivery, mappedConfigSchema } from './mapped-config.js';
import { parseMappedDelivery } from './parse-mapped-delivery.js';
import { verifyMappedDelivery } from './verify-mapped-delivery.js';

/**
 * Any JSON webhook as a conversation turn: verified by its sender's scheme, filtered, the prompt
 * rendered from the payload; the reply goes back to the caller (`replyUrl`, `wait`, the job view)
 * or out through another configured hook (the worker delivers with that hook's channel).
 */
export const mapped = defineChannel({
  type: 'mapped',
  config: mappedConfigSchema,
  limits: { textLength: Number.POSITIVE_INFINITY },
  secrets: (config) => [config.verify.scheme === 'token' ? config.verify.token : config.verify.secret],

  async receive(request, config) {
    const idAt = await verifyMappedDelivery(request, config.verify);
    return parseMappedDelivery(request, parseJsonBody(request.rawBody), config, idAt);
  },

  deliversThrough(config) {
    const via = hookDelivery(config);
    return via ? { ...via, path: ['deliver'] } : null;
  },

  /** POSTs the reply to `deliver.replyUrl` (as generic hooks do); otherwise the caller reads it. */
  async deliver({ message, text, index, meta }, { hook, config, http }) {
    const replyUrl = callerDelivery(config)?.replyUrl;
    if (!replyUrl) return;
    const label = `Hook '${hook}': reply to ${new URL(replyUrl).host}`;
    const reply = await http.send({
      label,
      method: 'POST',
      url: replyUrl,
      headers: { 'idempotency-key': index === 0 ? meta.jobId : `${meta.jobId}:${index}` },
      body: {
        id: meta.jobId,
        hook: meta.hook,
        conversation: message.conversation,
        text,
        model: meta.model,
        created: meta.created,
      },
    });
    if (reply.status >= 200 && reply.status < 300) return;
    const secret = config.verify.scheme === 'token' ? config.verify.token : config.verify.secret;
    throw statusFailure(label, reply.status, redact(reply.text, [secret]), parseRetryAfter(reply.headers['retry-after']));
  },

  /** Only a token-verified hook has a credential a caller can show when reading its job. */
  authorizeJobRead(headers, config) {
    if (config.verify.scheme !== 'token') throw unauthorized('Job reads need a hook verified by token.', 'invalid_token');
    verifyGenericToken({ headers, rawBody: Buffer.alloc(0), now: Date.now() }, config.verify.token);
  },
});
