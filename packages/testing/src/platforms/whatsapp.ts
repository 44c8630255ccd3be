import { createHmac } from 'node:crypto';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * WhatsApp as the Business Cloud API documents it: `whatsapp_business_account` webhooks signed
 * with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body under the app secret), and the Graph
 * API's answers and errors. Signatures use real HMAC keys, never a stub of our verifier.
 */

export const WHATSAPP_PHONE_NUMBER_ID = '106540352242922';

/*
 * Meta publishes no type package for the Cloud API, so its wire shapes are written out here from
 * the documentation: the webhook payload examples
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples), the
 * Messages reference (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages)
 * and the Graph API's error object (https://developers.facebook.com/docs/graph-api/guides/error-handling).
 */

/** A received text message (payload examples, "Text messages"). */
export type WhatsAppTextMessage = {
  from: string;
  id: string;
  timestamp: string;
  type: 'text';
  text: { body: string };
  context?: { from: string; id: string };
};

/**
 * A tap on a reply button of an interactive message the business sent (the interactive messages
 * webhook reference, developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/interactive):
 * `context` names the message holding the buttons, `interactive.button_reply` the button.
 */
export type WhatsAppButtonReplyMessage = {
  context: { from: string; id: string };
  from: string;
  id: string;
  timestamp: string;
  type: 'interactive';
  interactive: { type: 'button_reply'; button_reply: { id: string; title: string } };
};

/** A status of a message the business sent (payload examples, "Message status updates"). */
export type WhatsAppStatus = {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  timestamp: string;
  recipient_id: string;
  conversation?: { id: string; expiration_timestamp?: string; origin: { type: string } };
  pricing?: { billable: boolean; pricing_model: string; category: string };
  errors?: { code: number; title: string; message?: string; error_data?: { details: string } }[];
};

/** The value of a `messages` change. */
export type WhatsAppChangeValue = {
  messaging_product: 'whatsapp';
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile: { name: string }; wa_id: string }[];
  messages?: (WhatsAppTextMessage | WhatsAppButtonReplyMessage)[];
  statuses?: WhatsAppStatus[];
};

/** The webhook body: `whatsapp_business_account` entries of changes. */
export type WhatsAppWebhook = {
  object: 'whatsapp_business_account';
  entry: { id: string; changes: { field: 'messages'; value: WhatsAppChangeValue }[] }[];
};

/** What `POST /{phone_number_id}/messages` answers (Messages reference, "Response"). */
export type WhatsAppSendResult = {
  messaging_product: 'whatsapp';
  contacts: { input: string; wa_id: string }[];
  messages: { id: string }[];
};

/** The Graph API's error object; WhatsApp's errors add `error_data.details`. */
export type GraphError = {
  error: {
    message: string;
    type: string;
    code: number;
    error_subcode?: number;
    error_data?: { messaging_product: 'whatsapp'; details: string };
    fbtrace_id: string;
  };
};

/**
 * A webhook holding one text message from `from`, as the "Text messages" payload example shows
 * it; override the message or the change's value per test (loose on purpose: tests send
 * malformed messages too).
 */
export function whatsappTextWebhook(message: Record<string, unknown> = {}, value: Record<string, unknown> = {}) {
  const from = typeof message.from === 'string' ? message.from : '16505551234';
  const text = {
    from,
    id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
    timestamp: String(Math.floor(SAMPLE_NOW / 1000)),
    type: 'text',
    text: { body: 'Does it come in another color?' },
  } satisfies WhatsAppTextMessage;
  return messagesChange({
    contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: from }],
    messages: [{ ...text, ...message } as WhatsAppTextMessage],
    ...value,
  });
}

let taps = 0;
/**
 * The webhook of `from` tapping the button `button` of the message `questionId` (as the business
 * sent it: its id and title), each tap a message of its own id.
 */
export function whatsappButtonReplyWebhook(
  questionId: string,
  button: { id: string; title: string },
  from = '16505551234',
  name = 'Sheena Nelson',
) {
  const tap = {
    context: { from: '15550783881', id: questionId },
    from,
    id: `wamid.HBgLtap${++taps}`,
    timestamp: String(Math.floor(SAMPLE_NOW / 1000)),
    type: 'interactive',
    interactive: { type: 'button_reply', button_reply: { id: button.id, title: button.title } },
  } satisfies WhatsAppButtonReplyMessage;
  return messagesChange({ contacts: [{ profile: { name }, wa_id: from }], messages: [tap] });
}

/**
 * A status update (`sent`, `delivered`, `read`, `failed`) for a message the business sent, with
 * the conversation and pricing the "Message status updates" payload examples carry.
 */
export function whatsappStatusWebhook(status: WhatsAppStatus['status'] = 'delivered') {
  return messagesChange({
    statuses: [
      {
        id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MTE5MjVBOTE3MDk5QUVFM0YA',
        status,
        timestamp: String(Math.floor(SAMPLE_NOW / 1000)),
        recipient_id: '16505551234',
        conversation: { id: 'c1f3d5e7a9b2c4d6e8f0a1b3c5d7e9f1', origin: { type: 'service' } },
        pricing: { billable: false, pricing_model: 'PMP', category: 'service' },
      },
    ],
  });
}

/** The envelope around one `messages` change to the business number. */
function messagesChange<Value extends Omit<WhatsAppChangeValue, 'messaging_product' | 'metadata'>>(value: Value) {
  return {
    object: 'whatsapp_business_account' as const,
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages' as const,
            value: {
              messaging_product: 'whatsapp' as const,
              metadata: { display_phone_number: '15550783881', phone_number_id: WHATSAPP_PHONE_NUMBER_ID },
              ...value,
            },
          },
        ],
      },
    ],
  } satisfies WhatsAppWebhook;
}

/** `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body under the app secret. */
export function whatsappSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/** A webhook request as Meta sends it, signed with `appSecret`. */
export function whatsappRequest(appSecret: string, body: unknown, now = SAMPLE_NOW): SignedRequest {
  const request = jsonRequest(body, {}, now);
  request.headers['x-hub-signature-256'] = whatsappSignature(appSecret, request.rawBody);
  return request;
}

/** The Graph API's error body (code 131047: the 24-hour customer-service window is closed). */
export function graphError(code: number, message: string, details?: string): GraphError {
  return {
    error: {
      message: `(#${code}) ${message}`,
      type: 'OAuthException',
      code,
      ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
      fbtrace_id: 'Az8or2yhqkZfEZ-_4Qn_Bam',
    },
  };
}
