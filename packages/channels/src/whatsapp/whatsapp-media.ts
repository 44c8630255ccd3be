import { joinUrl } from '@switchboard/http';
import { isRetryableStatus, type MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { DeliveryContext } from '../definition.js';
import { redact } from '../http.js';
import { platformFileHost } from '../media/file-host.js';
import { MediaGoneError, MediaHostRefused, type MediaLocation } from '../media/media-location.js';
import { checkWhatsAppReply } from './whatsapp-api-result.js';

/**
 * `GET /{version}/{media-id}`'s answer (developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url):
 * `{messaging_product, url, mime_type, sha256, file_size, id}`; the URL "is only valid for 5 minutes".
 */
const mediaUrlSchema = z.looseObject({ url: z.string().min(1) });

/** Meta's hosts for media downloads (lookaside.fbsbx.com) and the Graph API's own. */
export const WHATSAPP_FILE_DOMAINS = ['fbsbx.com', 'facebook.com'];

interface WhatsAppMediaConfig {
  accessToken: string;
  appSecret: string;
  apiUrl: string;
  apiVersion: string;
}

/**
 * Where a file a WhatsApp customer sent is: `GET /{version}/{media-id}` with the access token
 * answers a short-lived `url`, which is then fetched with the same token (Meta's "Download Media").
 * The token goes only to Meta's hosts or the `apiUrl` origin; a media id Meta no longer has (a 4xx)
 * is told to the sender, a 429 or 5xx is retried with the job.
 */
export async function locateWhatsAppMedia(
  ref: MediaRef,
  { hook, config, http }: DeliveryContext<WhatsAppMediaConfig>,
): Promise<MediaLocation> {
  const label = `Hook '${hook}': WhatsApp media URL`;
  const secrets = [config.accessToken, config.appSecret];
  const reply = await http.send({
    label,
    method: 'GET',
    url: joinUrl(config.apiUrl, `${config.apiVersion}/${encodeURIComponent(ref.ref)}`),
    headers: { authorization: `Bearer ${config.accessToken}` },
  });
  if (isRetryableStatus(reply.status)) checkWhatsAppReply(label, reply, secrets);
  const media = mediaUrlSchema.safeParse(reply.json);
  if (reply.status < 200 || reply.status > 299 || !media.success) {
    throw new MediaGoneError(`${label}: status ${reply.status} ${redact(reply.text.slice(0, 200), secrets)}`);
  }
  if (!platformFileHost(media.data.url, config.apiUrl, WHATSAPP_FILE_DOMAINS)) {
    throw new MediaHostRefused('not a WhatsApp media host');
  }
  return { url: media.data.url, headers: { authorization: `Bearer ${config.accessToken}` } };
}
