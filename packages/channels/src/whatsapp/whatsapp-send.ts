import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import type { DeliveryContext } from '../definition.js';
import type { JsonReply } from '../http.js';
import { checkWhatsAppReply } from './whatsapp-api-result.js';

/** What sending needs of a WhatsApp hook's config. */
export interface WhatsAppSendConfig {
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  apiUrl: string;
  apiVersion: string;
}

/**
 * `POST /{version}/{phone_number_id}/messages` with the access token: one message of any type
 * (text, interactive…) from the business number; a Graph error becomes its `DeliveryError`.
 */
export async function sendWhatsAppMessage(
  { hook, config, http }: DeliveryContext<WhatsAppSendConfig>,
  phoneNumberId: string,
  message: Record<string, unknown>,
): Promise<JsonReply> {
  const label = `Hook '${hook}': WhatsApp messages`;
  const reply = await http.send({
    label,
    method: 'POST',
    url: joinUrl(config.apiUrl, `${config.apiVersion}/${phoneNumberId}/messages`),
    headers: { authorization: `Bearer ${config.accessToken}` },
    body: { messaging_product: 'whatsapp', ...message },
  });
  checkWhatsAppReply(label, reply, [config.accessToken, config.appSecret, config.verifyToken]);
  return reply;
}

/** What `parseWhatsAppWebhook` stored in `replyTo`; checked again because it comes back from the job store. */
export const whatsappReplyToSchema = z.object({
  phone_number_id: z.string().min(1),
  to: z.string().min(1),
  message_id: z.string().min(1),
  /** `group` when `to` is a group id (a message written in a group): the reply goes to the group. */
  recipient_type: z.enum(['individual', 'group']).optional(),
});
