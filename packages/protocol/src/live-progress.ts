import { z } from 'zod';

/**
 * How far a streamed reply got on its platform, recorded in the job as it happens (the worker
 * writes it, a later run of the same job reads it): the messages already posted, in order, and how
 * much of the reply each holds. A run that follows a crash edits these messages instead of posting
 * new ones, so the chat never shows a second copy, and ends with the complete text in them.
 */
export const liveMessageSchema = z.object({
  /** The platform's id of the message (Telegram message_id, Slack ts, Discord message id). */
  id: z.string().min(1),
  /** Characters of the reply (its Markdown source) the message holds. */
  chars: z.int().nonnegative(),
});

export const liveProgressSchema = z.object({
  v: z.literal(1),
  messages: z.array(liveMessageSchema).max(1000),
  /** A native platform stream (Slack's chat.startStream) that may still be open: its message id. */
  open: z.string().min(1).optional(),
  /**
   * How this reply is shown when the platform refused the preferred way (`edit`: post, then
   * edit), so a re-run does not try the refused way again.
   */
  mode: z.enum(['edit']).optional(),
});

export type LiveMessage = z.infer<typeof liveMessageSchema>;
export type LiveProgress = z.infer<typeof liveProgressSchema>;

export const NO_LIVE_PROGRESS: LiveProgress = { v: 1, messages: [] };

/** Reads recorded progress; anything unreadable counts as none (the reply then starts over). */
export function readLiveProgress(json: string | null | undefined): LiveProgress | null {
  if (!json) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  const parsed = liveProgressSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
