import type { InboundMessage } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';

/**
 * A WhatsApp Business Account webhook: `entry[].changes[]`, each a `field` and its `value`.
 * Loose throughout: Meta adds fields and message types often; only what is named here is read.
 */
const webhookSchema = z.looseObject({
  object: z.string(),
  entry: z.array(z.looseObject({ changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })) })),
});

const messagesValueSchema = z.looseObject({
  metadata: z.looseObject({ phone_number_id: z.string().min(1) }),
  /** Absent on status updates (sent, delivered, read, failed), which are acknowledged only. */
  messages: z
    .array(
      z.looseObject({
        from: z.string().min(1),
        id: z.string().min(1),
        type: z.string(),
        text: z.looseObject({ body: z.string() }).optional(),
      }),
    )
    .optional(),
});

export interface WhatsAppParseOptions {
  /** When set, only messages to this business number are answered (others are acknowledged). */
  phoneNumberId?: string | undefined;
}

/**
 * Turns a verified webhook into the text messages to answer, in the order Meta sent them (one
 * delivery may batch several), or an acknowledgement when it holds none: status updates, other
 * fields, media and reactions are acknowledged with 200 so Meta does not retry them.
 *
 * @throws AppError 400 when the body is not a webhook of that shape.
 */
export function parseWhatsAppWebhook(body: unknown, options: WhatsAppParseOptions = {}): Inbound {
  const webhook = parseWith(webhookSchema, body);
  if (webhook.object !== 'whatsapp_business_account') return { kind: 'answer', answer: okAnswer() };
  const messages: InboundMessage[] = [];
  webhook.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      if (change.field !== 'messages') return;
      const value = parseWith(messagesValueSchema, change.value, ['entry', e, 'changes', c, 'value']);
      const phoneNumberId = value.metadata.phone_number_id;
      if (options.phoneNumberId && phoneNumberId !== options.phoneNumberId) return;
      for (const message of value.messages ?? []) {
        const text = message.type === 'text' ? message.text?.body : undefined;
        if (text === undefined || text.trim() === '') continue;
        messages.push({
          action: 'chat',
          text,
          from: message.from,
          // One conversation per customer and business number.
          conversation: `${phoneNumberId}:${message.from}`,
          // The wamid: Meta repeats it when it retries a delivery.
          dedupeKey: message.id,
          replyTo: { phone_number_id: phoneNumberId, to: message.from, message_id: message.id },
        });
      }
    });
  });
  if (messages.length === 0) return { kind: 'answer', answer: okAnswer() };
  return { kind: 'messages', messages, ack: () => okAnswer() };
}
