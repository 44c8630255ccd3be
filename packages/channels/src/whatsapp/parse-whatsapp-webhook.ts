import type { InboundMessage, MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import { type ApprovalClick, readChoicePayload } from '../approvals/approval.js';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';
import { mediaKindOf } from '../media/media-kind.js';

/**
 * A WhatsApp Business Account webhook: `entry[].changes[]`, each a `field` and its `value`.
 * Loose throughout: Meta adds fields and message types often; only what is named here is read.
 */
const webhookSchema = z.looseObject({
  object: z.string(),
  entry: z.array(z.looseObject({ changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })) })),
});

/** A media object of a message: its id, declared type, and (documents) its file name and (images, documents) caption. */
const mediaSchema = z.looseObject({
  id: z.string().min(1),
  mime_type: z.string().optional(),
  filename: z.string().optional(),
  caption: z.string().optional(),
  voice: z.boolean().optional(),
});

const messagesValueSchema = z.looseObject({
  metadata: z.looseObject({ phone_number_id: z.string().min(1), display_phone_number: z.string().optional() }),
  /** The senders' profiles: `wa_id` and `profile.name`. */
  contacts: z
    .array(z.looseObject({ wa_id: z.string().optional(), profile: z.looseObject({ name: z.string() }).optional() }))
    .optional(),
  /** Absent on status updates (sent, delivered, read, failed), which are acknowledged only. */
  messages: z
    .array(
      z.looseObject({
        from: z.string().min(1),
        id: z.string().min(1),
        type: z.string(),
        text: z.looseObject({ body: z.string() }).optional(),
        /**
         * Media a customer sent, by media id: fetched with the access token (`GET /{media-id}`,
         * then its `url`). Images and documents may carry a caption; a voice note is an `audio`
         * with `voice: true` (developers.facebook.com …/webhooks/reference/messages/image, audio, document).
         */
        image: mediaSchema.optional(),
        audio: mediaSchema.optional(),
        voice: mediaSchema.optional(),
        document: mediaSchema.optional(),
        /**
         * Set on a message written in a group the business number is in (developers.facebook.com
         * …/webhooks/reference/messages/group/); `from` is then the participant who wrote it.
         */
        group_id: z.string().min(1).optional(),
        /**
         * A tap on a reply button of an interactive message the business sent: `button_reply.id`
         * is the button's id (…/webhooks/reference/messages/interactive); `context.id` the message
         * holding the buttons.
         */
        interactive: z
          .looseObject({
            type: z.string(),
            button_reply: z.looseObject({ id: z.string(), title: z.string().optional() }).optional(),
          })
          .optional(),
        /** A reply quotes the message it answers: who wrote that one, and its id. */
        context: z.looseObject({ from: z.string().optional(), id: z.string().optional() }).optional(),
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
 * fields, reactions, stickers and video are acknowledged with 200 so Meta does not retry them.
 * Images, voice notes, audio and documents are kept as references (the worker fetches them).
 *
 * @throws AppError 400 when the body is not a webhook of that shape.
 */
export function parseWhatsAppWebhook(body: unknown, options: WhatsAppParseOptions = {}): Inbound {
  const webhook = parseWith(webhookSchema, body);
  if (webhook.object !== 'whatsapp_business_account') return { kind: 'answer', answer: okAnswer() };
  const messages: InboundMessage[] = [];
  const clicks: ApprovalClick[] = [];
  webhook.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      if (change.field !== 'messages') return;
      const value = parseWith(messagesValueSchema, change.value, ['entry', e, 'changes', c, 'value']);
      const phoneNumberId = value.metadata.phone_number_id;
      if (options.phoneNumberId && phoneNumberId !== options.phoneNumberId) return;
      const business = digits(value.metadata.display_phone_number);
      for (const message of value.messages ?? []) {
        const name = value.contacts?.find((contact) => contact.wa_id === message.from)?.profile?.name;
        const choice = message.type === 'interactive' ? readChoicePayload(message.interactive?.button_reply?.id ?? '') : null;
        if (choice) {
          const where = { phone_number_id: phoneNumberId, to: message.group_id ?? message.from };
          clicks.push({
            ...choice,
            jobId: '',
            user: message.from,
            userName: name ?? message.from,
            prompt: {
              ...where,
              message_id: message.context?.id ?? '',
              recipient_type: message.group_id ? 'group' : 'individual',
            },
            reply: { phone_number_id: phoneNumberId, to: message.from },
          });
          continue;
        }
        const media = mediaOf(message);
        const text = message.type === 'text' ? message.text?.body : media[0] && captionOf(message);
        if ((text === undefined || text.trim() === '') && media.length === 0) continue;
        const group = message.group_id;
        messages.push({
          action: 'chat',
          text: text ?? '',
          from: message.from,
          ...(media.length ? { media } : {}),
          ...(name ? { fromName: name } : {}),
          place: group ? 'group' : 'direct',
          // A reply to one of the business's messages, or its number @-mentioned in the text.
          addressed:
            business !== '' &&
            (digits(message.context?.from) === business || (text ?? '').replace(/[\s-]/g, '').includes(`@${business}`)),
          // One conversation per customer and business number; a group's is the group's.
          conversation: group ? `${phoneNumberId}:group:${group}` : `${phoneNumberId}:${message.from}`,
          // The wamid: Meta repeats it when it retries a delivery.
          dedupeKey: message.id,
          replyTo: {
            phone_number_id: phoneNumberId,
            to: group ?? message.from,
            message_id: message.id,
            ...(group ? { recipient_type: 'group' } : {}),
          },
        });
      }
    });
  });
  // A tap on Approve / Deny is answered alone. Meta sends one message a webhook; should a batch
  // hold a tap beside messages, the messages are queued and the tap is not acted on (the person
  // taps again, or the call is denied when its time runs out).
  if (messages.length === 0 && clicks[0]) return { kind: 'click', click: clicks[0] };
  if (messages.length === 0) return { kind: 'answer', answer: okAnswer() };
  return { kind: 'messages', messages, ack: () => okAnswer() };
}

type WhatsAppMessage = NonNullable<z.output<typeof messagesValueSchema>['messages']>[number];

/** The media of a message of type image, audio, voice or document (stickers and video are not read). */
function mediaOf(message: WhatsAppMessage): MediaRef[] {
  const kinds = { image: 'image', audio: 'audio', voice: 'audio', document: 'document' } as const;
  if (!(message.type in kinds)) return [];
  const type = message.type as keyof typeof kinds;
  const media = message[type];
  if (!media) return [];
  const kind = type === 'document' ? mediaKindOf(media.mime_type) : kinds[type];
  const name = media.filename ?? (type === 'image' ? 'photo.jpg' : kind === 'audio' ? 'voice.ogg' : undefined);
  return [
    {
      kind: kind === 'file' ? 'document' : kind,
      ref: media.id,
      ...(name ? { name: name.slice(0, 256) } : {}),
      ...(media.mime_type ? { type: media.mime_type.slice(0, 128) } : {}),
    },
  ];
}

function captionOf(message: WhatsAppMessage): string | undefined {
  return message.image?.caption ?? message.document?.caption;
}

/** A phone number's digits alone: the display number is written `+1 555-0100`, ids as `15550100`. */
function digits(phone: string | undefined): string {
  return (phone ?? '').replace(/\D/g, '');
}
