import { z } from 'zod';
import { queuedMessageCheck } from './queued-message-check.js';

/**
 * The hook-message contract: what a channel makes of an inbound request, and what is queued for
 * the worker. Defined here once, read by channels (which produce it), the API (which queues it)
 * and the worker (which answers it). A change to the queued shape bumps `HOOK_MESSAGE_VERSION`
 * and teaches `readQueuedMessage` to read the previous one, so jobs queued before an upgrade are
 * still answered after it.
 */

/**
 * A file a message carries, by reference: what the platform calls it (`ref`: a Telegram file_id,
 * a Slack url_private_download, a generic hook's URL or `data:` URL), never the bytes the worker
 * fetches. `kind` is what the platform says it is; the bytes decide what it really is.
 */
export const mediaRefSchema = z.object({
  kind: z.enum(['image', 'audio', 'document', 'file']),
  /** How the hook's channel finds the file; a generic hook's `data:` URL may be long (up to its body limit). */
  ref: z.string().min(1),
  /** The file's name as sent, for the reply and memory (`[image: receipt.jpg]`). */
  name: z.string().max(256).optional(),
  /** The content type the sender declared; only a hint; the worker sniffs the bytes. */
  type: z.string().max(128).optional(),
  /** The size the platform reported, bytes, when it did: a file known to be too big is not fetched. */
  size: z.number().int().nonnegative().optional(),
  /** How long a voice note or audio file lasts, seconds, when the platform says (Telegram's `voice.duration`). */
  seconds: z.number().nonnegative().max(86_400).optional(),
});

export type MediaRef = z.infer<typeof mediaRefSchema>;

/** How memory names a file, never its bytes: `[image: receipt.jpg]`. */
export function mediaPlaceholder(ref: MediaRef): string {
  return `[${ref.kind}: ${ref.name ?? ref.kind}]`;
}

/** A message's text as memory keeps it: each file's placeholder, then the text. */
export function withMediaPlaceholders(text: string, media: readonly MediaRef[] | undefined): string {
  return [...(media ?? []).map(mediaPlaceholder), text].filter(Boolean).join(' ');
}

/** One normalized inbound message, JSON-serializable (it is stored in the job). */
export const inboundMessageSchema = z.object({
  /**
   * `chat` asks for a reply; `reset` clears the conversation's memory (then sends `reply`, when
   * set); `say` sends `reply` and nothing else (no model, no memory: a pairing code, a notice, the
   * help text); `remember` keeps `text` in memory as context and answers nothing (a group message
   * not addressed to the bot, with `groupContext` on). Since version 4: `say` and `remember`.
   */
  action: z.enum(['chat', 'reset', 'say', 'remember']),
  text: z.string(),
  /** Sender id as the platform names it. */
  from: z.string(),
  /** Since version 4: the sender's display name, when the platform sends one (for memory and the pairing list). */
  fromName: z.string().max(256).optional(),
  /**
   * Since version 4: where the message was written, as the channel's parser read it: `direct` (a
   * one-to-one chat with the bot) or `group` (a group chat, a channel). Absent: the channel has
   * no such notion (mapped hooks), and access rules do not apply to it.
   */
  place: z.enum(['direct', 'group']).optional(),
  /** Since version 4: the message mentions the bot, or replies to one of its messages (group chats). */
  addressed: z.boolean().optional(),
  /** Since version 4: the fixed text the worker sends for `say`, and after `reset`; the model is not asked. */
  reply: z.string().max(4096).optional(),
  /**
   * Files the message carries, as references only: the worker fetches them when it answers
   * (docs/media.md). Optional within version 4, so v4 jobs queued without it read the same.
   */
  media: z.array(mediaRefSchema).max(10).optional(),
  /** Conversation within the hook: Slack channel+thread, Telegram chat, Discord channel+user, generic sender. */
  conversation: z.string(),
  /** A key the platform repeats on retries (Slack channel+ts, update_id, interaction id, Idempotency-Key). */
  dedupeKey: z.string().nullable(),
  /** What the channel needs to deliver the reply (channel and thread, chat id, interaction token…). */
  replyTo: z.record(z.string(), z.union([z.string(), z.number()])),
  /**
   * Since version 3: the reply goes out through another configured hook instead of this one (a
   * mapped hook's `deliver: {hook: team-slack, channel: C123}`): that hook's name and the target
   * as the config named it, templates rendered. The worker turns `target` into that hook's
   * `replyTo` when it delivers. Absent: the hook that received the message delivers.
   */
  deliverVia: z.object({ hook: z.string().min(1), target: z.record(z.string(), z.union([z.string(), z.number()])) }).optional(),
});

export type InboundMessage = z.infer<typeof inboundMessageSchema>;

export const HOOK_MESSAGE_VERSION = 4;

/**
 * A queued hook message, version 4 (version 3 without `say`/`remember` and the sender's place,
 * name and `reply`; version 2 without `message.deliverVia` too).
 */
export const queuedMessageSchema = z.object({
  v: z.literal(HOOK_MESSAGE_VERSION),
  hook: z.string(),
  message: inboundMessageSchema,
  /** Unix milliseconds when the API accepted it. */
  receivedAt: z.number(),
  /**
   * True when it was queued behind an unfinished message of its conversation: it then runs only
   * once that one is done (the ordering module decides). False: it was first in line.
   */
  waits: z.boolean(),
  /**
   * The W3C `traceparent` of the span that queued it, when tracing is on: the worker's spans
   * continue that trace. Optional, so jobs without it (older, or tracing off) read the same.
   */
  trace: z.string().max(256).optional(),
});

export type QueuedMessage = z.infer<typeof queuedMessageSchema>;

const isPlainQueuedMessage = queuedMessageCheck(HOOK_MESSAGE_VERSION) as (data: unknown) => data is QueuedMessage;

/** The message of versions 1–3: a chat or a reset, no place, name or fixed reply. */
const version3MessageSchema = inboundMessageSchema
  .omit({ fromName: true, place: true, addressed: true, reply: true, media: true })
  .extend({ action: z.enum(['chat', 'reset']) });

/** Version 3: before the bot could answer with a fixed text or keep a message as context only. */
const version3Schema = queuedMessageSchema.extend({ v: z.literal(3), message: version3MessageSchema });

/** Version 2: the same shape, before a message could name another hook to deliver through. */
const version2Schema = queuedMessageSchema.extend({
  v: z.literal(2),
  message: version3MessageSchema.omit({ deliverVia: true }),
});

/**
 * Version 1 (before `v` existed): progress was kept in the job data itself. Read only to upgrade
 * jobs queued by an older release.
 */
const legacyQueuedMessageSchema = z.object({
  hook: z.string(),
  message: version3MessageSchema.omit({ deliverVia: true }),
  receivedAt: z.number(),
  after: z.string().nullable(),
  reply: z.object({ text: z.string(), model: z.string(), created: z.number() }).optional(),
  historySaved: z.boolean().optional(),
  delivered: z.number().int().nonnegative().optional(),
});

/** What a version-1 job had already done: the worker resumes from it instead of starting over. */
export interface LegacyProgress {
  reply?: { text: string; model: string; created: number };
  /** The exchange was already stored in the conversation's memory. */
  historySaved: boolean;
  delivered: number;
}

/**
 * Reads job data of any version this release understands: the message as version 4, plus what a
 * version-1 job had already done. Null when the data is no hook message at all.
 */
export function readQueuedMessage(data: unknown): { message: QueuedMessage; legacy: LegacyProgress | null } | null {
  // The common message as it is (what the schema would return unchanged); the rest through the schema.
  if (isPlainQueuedMessage(data)) return { message: data, legacy: null };
  const current = queuedMessageSchema.safeParse(data);
  if (current.success) return { message: current.data, legacy: null };
  const version3 = version3Schema.safeParse(data);
  if (version3.success) return { message: { ...version3.data, v: HOOK_MESSAGE_VERSION }, legacy: null };
  const version2 = version2Schema.safeParse(data);
  if (version2.success) return { message: { ...version2.data, v: HOOK_MESSAGE_VERSION }, legacy: null };
  const old = legacyQueuedMessageSchema.safeParse(data);
  if (!old.success) return null;
  const { hook, message, receivedAt, reply, historySaved, delivered } = old.data;
  return {
    // A version-1 job's predecessor was linked in keys this release no longer reads, so it runs
    // without waiting: at worst, messages in flight across the upgrade are answered out of order.
    message: { v: HOOK_MESSAGE_VERSION, hook, message, receivedAt, waits: false },
    legacy: { ...(reply ? { reply } : {}), historySaved: historySaved ?? false, delivered: delivered ?? 0 },
  };
}

/** A queued job's `traceparent`, read without parsing the whole message (the tracing wrapper runs first). */
export function queuedTraceparent(data: unknown): string | undefined {
  const trace = (data as { trace?: unknown } | null)?.trace;
  return typeof trace === 'string' && trace.length <= 256 ? trace : undefined;
}

/**
 * The conversation a message belongs to, across hooks: memory, ordering and active sessions all
 * key on this, and nothing else builds it.
 */
export function conversationKey(hook: string, conversation: string): string {
  return `${hook}:${conversation}`;
}
