import { createHmac } from 'node:crypto';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * WhatsApp as the Business Cloud API documents it: `whatsapp_business_account` webhooks signed
 * with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body under the app secret), and the Graph
 * API's answers and errors. Signatures use real HMAC keys, never a stub of our verifier.
 */

export const WHATSAPP_PHONE_NUMBER_ID = '106540352242922';

/** A webhook holding one text message from `from`; override the message or the change's value per test. */
export function whatsappTextWebhook(message: Record<string, unknown> = {}, value: Record<string, unknown> = {}) {
  const from = typeof message.from === 'string' ? message.from : '16505551234';
  return messagesChange({
    contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: from }],
    messages: [
      {
        from,
        id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
        timestamp: String(Math.floor(SAMPLE_NOW / 1000)),
        type: 'text',
        text: { body: 'Does it come in another color?' },
        ...message,
      } as Record<string, unknown> & { from: string; id: string },
    ],
    ...value,
  });
}

/** A status update (`sent`, `delivered`, `read`, `failed`) for a message the business sent. */
export function whatsappStatusWebhook(status = 'delivered') {
  return messagesChange({
    statuses: [
      {
        id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MTE5MjVBOTE3MDk5QUVFM0YA',
        status,
        timestamp: String(Math.floor(SAMPLE_NOW / 1000)),
        recipient_id: '16505551234',
      },
    ],
  });
}

/** The envelope around one `messages` change to the business number. */
function messagesChange<Value extends Record<string, unknown>>(value: Value) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: WHATSAPP_PHONE_NUMBER_ID },
              ...value,
            },
          },
        ],
      },
    ],
  };
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
export function graphError(code: number, message: string, details?: string) {
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
