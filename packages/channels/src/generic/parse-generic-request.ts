import { invalidRequest } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound, InboundRequest } from '../definition.js';
import { headerValue, parseJsonBody, parseWith } from '../inbound.js';

/** Our own wire format, so unknown fields are ignored rather than rejected: callers may add metadata. */
export const genericBodySchema = z.object({
  text: z.string().optional(),
  from: z.string().min(1).max(256),
  action: z.enum(['chat', 'reset']).default('chat'),
});

/** A generic hook request body, after defaults. */
export type GenericBody = z.infer<typeof genericBodySchema>;

const MAX_IDEMPOTENCY_KEY = 256;

/**
 * Parses `{text, from, action}`. `chat` needs text; `reset` clears the sender's conversation and
 * may come without. The sender is the conversation; `Idempotency-Key` is the dedupe key.
 *
 * @throws AppError 400 naming the offending field.
 */
export function parseGenericRequest(request: InboundRequest): Inbound {
  const body = parseWith(genericBodySchema, parseJsonBody(request.rawBody));
  const text = body.text ?? '';
  // Whitespace alone is no question: refusing it here is cheaper than a model call.
  if (body.action === 'chat' && text.trim() === '') {
    throw invalidRequest("Invalid 'text': a chat message needs non-empty text.", 'text');
  }
  return {
    kind: 'message',
    message: {
      action: body.action,
      text,
      from: body.from,
      // One sender, one conversation: a generic hook is a direct chat with its caller.
      place: 'direct',
      conversation: body.from,
      dedupeKey: idempotencyKey(request),
      replyTo: {},
    },
    ack: (jobId) => ({ status: 202, body: { id: jobId, status: 'queued' } }),
    // Dropped by the hook's `access`: taken, and nothing will come of it.
    ignored: () => ({ status: 200, body: { id: null, status: 'ignored' } }),
  };
}

function idempotencyKey(request: InboundRequest): string | null {
  const key = headerValue(request.headers, 'idempotency-key')?.trim();
  if (!key) return null;
  if (key.length > MAX_IDEMPOTENCY_KEY) {
    throw invalidRequest(`Invalid 'Idempotency-Key': at most ${MAX_IDEMPOTENCY_KEY} characters.`, 'Idempotency-Key');
  }
  return key;
}
