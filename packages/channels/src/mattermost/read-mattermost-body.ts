import { invalidRequest } from '@switchboard/protocol';
import type { InboundRequest } from '../definition.js';
import { headerValue, parseJsonBody } from '../inbound.js';

/** Slash commands always post a form; outgoing webhooks post a form or JSON, as each is set up. */
export const MATTERMOST_BODY_TYPES = ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'] as const;

/**
 * The request's fields, from JSON or from a URL-encoded form (by its declared type; none is
 * JSON). A form's repeated field keeps its first value.
 *
 * @throws AppError 400 when the body cannot be read as its type says.
 */
export function readMattermostBody(request: InboundRequest): unknown {
  const type = headerValue(request.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return parseJsonBody(request.rawBody);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(request.rawBody);
  if (text.includes('\uFFFD')) throw invalidRequest('The form is not valid UTF-8.', null, 'invalid_body');
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) if (!Object.hasOwn(fields, name)) fields[name] = value;
  return fields;
}
