import { invalidRequest, type MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound, InboundRequest } from '../definition.js';
import { headerValue, parseJsonBody, parseWith } from '../inbound.js';
import { mediaKindOf } from '../media/media-kind.js';

/** Our own wire format, so unknown fields are ignored rather than rejected: callers may add metadata. */
export const genericBodySchema = z.object({
  text: z.string().optional(),
  from: z.string().min(1).max(256),
  action: z.enum(['chat', 'reset']).default('chat'),
  /**
   * Files with the message (docs/media.md): each by `url` (fetched by the worker when it
   * answers) or by `data` (base64, or a `data:` URL), with the declared `type` and a `name`.
   */
  attachments: z
    .array(
      z
        .object({
          url: z.url({ protocol: /^https?$/ }).optional(),
          data: z.string().min(1).optional(),
          type: z.string().max(128).optional(),
          name: z.string().max(256).optional(),
        })
        .refine((a) => (a.url === undefined) !== (a.data === undefined), 'give either url or data'),
    )
    .max(10)
    .optional(),
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
  const media = (body.attachments ?? []).map(attachmentRef);
  // Whitespace alone is no question: refusing it here is cheaper than a model call.
  if (body.action === 'chat' && text.trim() === '' && media.length === 0) {
    throw invalidRequest("Invalid 'text': a chat message needs non-empty text or attachments.", 'text');
  }
  return {
    kind: 'message',
    message: {
      action: body.action,
      text,
      from: body.from,
      ...(media.length ? { media } : {}),
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

type Attachment = NonNullable<GenericBody['attachments']>[number];

/** An attachment as the job records it: its URL, or its bytes as a `data:` URL (the body limit bounds them). */
function attachmentRef(attachment: Attachment, index: number): MediaRef {
  const { url, data, type, name } = attachment;
  let ref = url;
  if (data !== undefined) {
    const declared = /^data:([^;,]*)(?:;[^,]*)?,/.exec(data);
    if (!declared && !/^[A-Za-z0-9+/=\s]+$/.test(data)) {
      throw invalidRequest(`Invalid 'attachments[${index}].data': base64 or a data: URL.`, `attachments[${index}].data`);
    }
    ref = declared ? data : `data:${type ?? 'application/octet-stream'};base64,${data.replace(/\s/g, '')}`;
  }
  return {
    kind: mediaKindOf(type ?? /^data:([^;,]*)/.exec(ref!)?.[1]),
    ref: ref!,
    ...(name ? { name } : {}),
    ...(type ? { type } : {}),
  };
}
