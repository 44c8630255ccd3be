import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { checkWith } from '../credential-check.js';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseJsonBody } from '../inbound.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { markdownToWhatsApp } from '../rich-text/whatsapp-text.js';
import { parseWhatsAppWebhook } from './parse-whatsapp-webhook.js';
import { verifyWhatsAppSignature } from './verify-whatsapp-signature.js';
import { judgeWhatsAppPhoneNumber } from './whatsapp-api-result.js';
import { whatsappApprovals } from './whatsapp-approvals.js';
import { answerWhatsAppHandshake } from './whatsapp-handshake.js';
import { locateWhatsAppMedia } from './whatsapp-media.js';
import { sendWhatsAppMessage, whatsappReplyToSchema } from './whatsapp-send.js';

/** The Cloud API's limit on a text message's body. */
export const WHATSAPP_TEXT_LIMIT = 4096;

/**
 * WhatsApp through the Business Cloud API: the `GET` subscription handshake, `X-Hub-Signature-256`
 * signed webhooks in, text replies out through `POST /{version}/{phone_number_id}/messages` from
 * the number the customer wrote to.
 */
export const whatsapp = defineChannel({
  type: 'whatsapp',
  config: z.strictObject({
    /** The Meta app's secret: every webhook's `X-Hub-Signature-256` is checked with it. */
    appSecret: z.string().min(8),
    /** The verify token entered with the callback URL, answered in the GET handshake. */
    verifyToken: z.string().min(8),
    /** A system user's access token with `whatsapp_business_messaging`. */
    accessToken: z.string().min(8),
    /** When set: only messages to this business number are answered, and it is what the health check reads. */
    phoneNumberId: z
      .string()
      .regex(/^\d{1,32}$/)
      .optional(),
    apiUrl: z.url().default('https://graph.facebook.com'),
    apiVersion: z
      .string()
      .regex(/^v\d+\.\d+$/)
      .default('v23.0'),
    /** Meta's pair rate limit: about one message every 6 s to one customer; short bursts are allowed. */
    sendLimits: sendLimitsSchema({ customer: { count: 5, perMs: 30_000 } }),
  }),
  limits: { textLength: WHATSAPP_TEXT_LIMIT },
  secrets: (config) => [config.appSecret, config.verifyToken, config.accessToken],

  handshake: (query, config) => answerWhatsAppHandshake(query, config.verifyToken),

  receive(request, config) {
    verifyWhatsAppSignature(request, config.appSecret);
    return parseWhatsAppWebhook(parseJsonBody(request.rawBody), { phoneNumberId: config.phoneNumberId });
  },

  sendTarget(message, config) {
    const target = whatsappReplyToSchema.safeParse(message.replyTo);
    return target.success
      ? { key: `${target.data.phone_number_id}:${target.data.to}`, rules: [config.sendLimits.customer] }
      : null;
  },

  /** Sends a part in WhatsApp's own formatting (rendered from its Markdown); the first quotes the customer's message (`context`), the rest follow it. */
  async deliver({ message, text, index }, context) {
    const target = whatsappReplyToSchema.safeParse(message.replyTo);
    if (!target.success)
      throw new DeliveryError(`Hook '${context.hook}': WhatsApp messages: the job holds no WhatsApp number and recipient`, false);
    const { phone_number_id, to, message_id, recipient_type = 'individual' } = target.data;
    await sendWhatsAppMessage(context, phone_number_id, {
      recipient_type,
      to,
      type: 'text',
      text: { body: markdownToWhatsApp(text), preview_url: false },
      ...(index === 0 ? { context: { message_id } } : {}),
    });
  },

  /** Approve / Deny as interactive reply buttons; a tap arrives as a signed webhook like any message. */
  approvals: whatsappApprovals,

  /** Images, voice notes and documents customers send: `GET /{media-id}`, then its URL, with the token. */
  media: { locate: locateWhatsAppMedia },

  /** `GET /{phone_number_id}`: proves the token can act for the number; nothing to check without one. */
  async checkCredentials({ hook, config, http }) {
    if (!config.phoneNumberId) return { connected: null };
    const label = `Hook '${hook}': WhatsApp phone number`;
    const url = joinUrl(config.apiUrl, `${config.apiVersion}/${config.phoneNumberId}`);
    const call = () => http.send({ label, method: 'GET', url, headers: { authorization: `Bearer ${config.accessToken}` } });
    return checkWith(call, (reply) => judgeWhatsAppPhoneNumber(label, reply, [config.accessToken, config.appSecret]));
  },
});
