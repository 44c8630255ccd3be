import { randomUUID } from 'node:crypto';
import { type InboundMessage, invalidRequest } from '@switchboard/protocol';
import type { Inbound, InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { callerDelivery, hookDelivery, type MappedConfig } from './mapped-config.js';
import { matchesFilter } from './match-filter.js';
import { renderTemplate } from './render-template.js';
import type { DeliveryId } from './verify-mapped-delivery.js';

const MAX_ID_LENGTH = 256;
const MAX_CONVERSATION_LENGTH = 512;

/**
 * Turns a verified JSON payload into one conversation turn: filtered out → 202 ignored; else the
 * prompt and conversation rendered from the payload, the delivery id as the dedupe key (a replay
 * within a day is answered 200 `duplicate` and queued nothing), and where the reply goes.
 *
 * @throws AppError 400 when the payload gives no prompt or an unusable delivery id.
 */
export function parseMappedDelivery(request: InboundRequest, payload: unknown, config: MappedConfig, idAt: DeliveryId): Inbound {
  if (!matchesFilter(config.filter, request, payload)) {
    return { kind: 'answer', answer: { status: 202, body: { status: 'ignored' } } };
  }
  const text = renderTemplate(config.template, payload).trim();
  if (text === '') throw invalidRequest('The template rendered no text from this payload.', 'template');
  const deliveryId = readDeliveryId(request, payload, idAt);
  const conversation = renderTemplate(config.conversation ?? '', payload).trim() || deliveryId || randomUUID();
  if (conversation.length > MAX_CONVERSATION_LENGTH) {
    throw invalidRequest(`The conversation key is longer than ${MAX_CONVERSATION_LENGTH} characters.`, 'conversation');
  }
  const via = hookDelivery(config);
  const message: InboundMessage = {
    action: 'chat',
    text,
    from: conversation,
    conversation,
    dedupeKey: deliveryId ? `delivery:${deliveryId}` : null,
    replyTo: {},
    ...(via ? { deliverVia: { hook: via.hook, target: renderTarget(via.target, payload) } } : {}),
  };
  const waitMs = callerDelivery(config)?.wait;
  return {
    kind: 'message',
    message,
    // A replay (or the sender's retry of what we took) is acknowledged so it stops, and answered no further.
    ack: (jobId, duplicate) =>
      duplicate ? { status: 200, body: { status: 'duplicate' } } : { status: 202, body: { id: jobId, status: 'queued' } },
    ...(waitMs ? { waitMs } : {}),
  };
}

function readDeliveryId(request: InboundRequest, payload: unknown, idAt: DeliveryId): string | null {
  if (!idAt) return null;
  const raw =
    'header' in idAt
      ? headerValue(request.headers, idAt.header)?.trim()
      : typeof payload === 'object' && payload !== null && 'id' in payload && typeof payload.id === 'string'
        ? payload.id
        : undefined;
  if (!raw) return null;
  if (raw.length > MAX_ID_LENGTH) throw invalidRequest(`The delivery id is longer than ${MAX_ID_LENGTH} characters.`, null);
  return raw;
}

/** The target's string values are templates over the payload (`thread: "{{alert.thread}}"`); numbers stay. */
function renderTarget(target: Record<string, string | number>, payload: unknown): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(target).map(([key, value]) => [
      key,
      typeof value === 'string' ? renderTemplate(value, payload).trim() : value,
    ]),
  );
}
