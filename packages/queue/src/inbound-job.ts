import { z } from 'zod';

/**
 * The data of one inbound-message job. The reply is written back into it once generated, so a
 * retry re-delivers the same text instead of asking the model again, and `delivered` counts the
 * parts already sent, so a retry never sends a part twice.
 */
export const inboundJobSchema = z.object({
  hook: z.string(),
  message: z.object({
    action: z.enum(['chat', 'reset']),
    text: z.string(),
    from: z.string(),
    conversation: z.string(),
    dedupeKey: z.string().nullable(),
    replyTo: z.record(z.string(), z.union([z.string(), z.number()])),
  }),
  receivedAt: z.number(),
  /** The job queued before this one in the same conversation: this one waits for it. */
  after: z.string().nullable(),
  reply: z.object({ text: z.string(), model: z.string(), created: z.number() }).optional(),
  historySaved: z.boolean().optional(),
  delivered: z.number().int().nonnegative().optional(),
});

export type InboundJobData = z.infer<typeof inboundJobSchema>;
export type InboundJobMessage = InboundJobData['message'];

/** What a completed job returns (readable at GET /hooks/:name/jobs/:id). */
export interface InboundJobResult {
  reply: string | null;
  model: string | null;
  parts: number;
}
