import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import { defineChannel } from '../definition.js';
import { redact, statusFailure } from '../http.js';
import { liveConfigShape } from '../live/live-config.js';
import { decodeDataUrl } from '../media/data-url.js';
import { genericLive } from './generic-live.js';
import { parseGenericRequest } from './parse-generic-request.js';
import { verifyGenericToken } from './verify-generic-token.js';

/** Names a hook's reply POST in errors: only the host (a receiver URL may carry its own secret in the path or query); the last one kept. */
let lastLabel = { hook: '', url: '', label: '' };
function replyLabel(hook: string, url: string): string {
  if (lastLabel.hook !== hook || lastLabel.url !== url)
    lastLabel = { hook, url, label: `Hook '${hook}': reply to ${new URL(url).host}` };
  return lastLabel.label;
}

/**
 * The generic JSON hook: callers authenticate with the hook token and, when `replyUrl` is
 * configured, receive the reply as a POST `{id, hook, to, text, model, created}`; they may also
 * read their job at `GET /hooks/:name/jobs/:id` with the same token.
 */
export const generic = defineChannel({
  type: 'generic',
  config: z.strictObject({
    /** Callers send it as `Authorization: Bearer <token>` or `X-Hook-Token`. */
    token: z.string().min(8),
    /** Where replies are POSTed; without it replies are only readable at GET /hooks/:name/jobs/:id. */
    replyUrl: z.url({ protocol: /^https?$/ }).optional(),
    ...liveConfigShape(100),
  }),
  // A receiver has no length limit we know of, so the reply goes out whole.
  limits: { textLength: Number.POSITIVE_INFINITY },
  secrets: (config) => [config.token],

  receive(request, config) {
    verifyGenericToken(request, config.token);
    return parseGenericRequest(request);
  },

  live: { feed: true, open: genericLive },

  /** An attachment's bytes came in the request (`data`), or are at the caller's URL: refused on private addresses unless allowed. */
  media: {
    locate: async (ref) => (ref.ref.startsWith('data:') ? { data: decodeDataUrl(ref.ref) } : { url: ref.ref, untrusted: true }),
  },

  /** POSTs the part to `replyUrl`; without one, replies are only read back through the API. */
  async deliver({ message, text, index, meta }, { hook, config, http }) {
    if (!config.replyUrl) return;
    const label = replyLabel(hook, config.replyUrl);
    const reply = await http.send({
      label,
      method: 'POST',
      url: config.replyUrl,
      // Each part is its own delivery; the receiver may drop any it has already seen.
      headers: { 'idempotency-key': index === 0 ? meta.jobId : `${meta.jobId}:${index}` },
      body: { id: meta.jobId, hook: meta.hook, to: message.from, text, model: meta.model, created: meta.created },
    });
    if (reply.status >= 200 && reply.status < 300) return;
    const retryAfterMs = parseRetryAfter(reply.headers['retry-after']);
    throw statusFailure(label, reply.status, redact(reply.text, [config.token]), retryAfterMs);
  },

  authorizeJobRead(headers, config) {
    verifyGenericToken({ headers, rawBody: Buffer.alloc(0), now: Date.now() }, config.token);
  },
});
