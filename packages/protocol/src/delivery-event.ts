import { z } from 'zod';

/**
 * The delivery-outcome contract: what the worker queues once a hook message's outcome is final,
 * and what the event sender POSTs (signed by the Standard Webhooks scheme) to `events.url`. The
 * body follows the scheme's recommended `{type, timestamp, data}`.
 */
export const DELIVERY_EVENT_TYPES = ['message.delivered', 'message.failed'] as const;

export const deliveryEventSchema = z.object({
  type: z.enum(DELIVERY_EVENT_TYPES),
  /** ISO 8601, when the outcome became final. */
  timestamp: z.string(),
  data: z.object({
    job_id: z.string(),
    /** The hook that received the message. */
    hook: z.string(),
    /** Where the reply went: the hook that delivered it and its target (channel, thread, chat…). */
    target: z.record(z.string(), z.union([z.string(), z.number()])),
    /** Attempts the job made, the final one included. */
    attempts: z.number().int(),
    /** `message.failed` only: why, secrets scrubbed. */
    error: z.string().optional(),
  }),
});

export type DeliveryEvent = z.infer<typeof deliveryEventSchema>;

/** The Standard Webhooks `webhook-id` of an event: the same on every retry, so a receiver drops repeats. */
export function deliveryEventId(event: DeliveryEvent): string {
  return `msg_${event.data.job_id}_${event.type === 'message.delivered' ? 'delivered' : 'failed'}`;
}
