import { type DeliveryEvent, deliveryEventId, parseRetryAfter } from '@switchboard/protocol';
import { Webhook } from 'standardwebhooks';
import { type DeliveryClient, statusFailure } from '../http.js';

export interface EventsDestination {
  url: string;
  /** `whsec_…`, the Standard Webhooks signing secret. */
  secret: string;
}

/**
 * POSTs one delivery event, signed by the Standard Webhooks scheme (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64>`) through the scheme's own library, so any
 * Standard Webhooks (or Svix) verifier accepts it. The id is the same on every retry.
 *
 * @throws DeliveryError for anything but a 2xx: the events queue retries any failure with back-off
 * (a receiver's 4xx too — it may be deploying a fix).
 */
export async function sendDeliveryEvent(
  http: DeliveryClient,
  destination: EventsDestination,
  event: DeliveryEvent,
): Promise<void> {
  const id = deliveryEventId(event);
  const now = new Date();
  // The body the client sends is this same JSON.stringify of the event, byte for byte.
  const signature = new Webhook(destination.secret).sign(id, now, JSON.stringify(event));
  const label = `Delivery event ${event.type} to ${new URL(destination.url).host}`;
  const reply = await http.send({
    label,
    method: 'POST',
    url: destination.url,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
    body: event,
  });
  if (reply.status >= 200 && reply.status < 300) return;
  throw statusFailure(label, reply.status, '', parseRetryAfter(reply.headers['retry-after']));
}
