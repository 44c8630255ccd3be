import type { MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';
import { mediaKindOf } from '../media/media-kind.js';

/**
 * Events API envelopes. Loose: Slack adds fields (authorizations, event_context, blocks…) at
 * will, and only the ones named here are relied on.
 */
const envelopeSchema = z.looseObject({ type: z.string() });

const urlVerificationSchema = z.looseObject({ type: z.literal('url_verification'), challenge: z.string() });

const eventCallbackSchema = z.looseObject({
  type: z.literal('event_callback'),
  team_id: z.string().min(1).optional(),
  event_id: z.string().min(1),
  event: z.looseObject({ type: z.string() }),
  /** The installations the event is for: the bot user's id among them (api.slack.com/events-api#authorizations). */
  authorizations: z.array(z.looseObject({ user_id: z.string().optional(), is_bot: z.boolean().optional() })).optional(),
});

/** Only checked for presence: edits, deletions, joins and bot posts are never questions. */
const senderKindSchema = z.looseObject({ bot_id: z.unknown().optional(), subtype: z.unknown().optional() });

const userMessageSchema = z.looseObject({
  user: z.string().min(1),
  text: z.string().default(''),
  channel: z.string().min(1),
  ts: z.string().min(1),
  thread_ts: z.string().min(1).optional(),
  /** The sender's own team: another organisation's in a Slack Connect channel (app_mention says `user_team`). */
  user_team: z.string().min(1).optional(),
  team: z.string().min(1).optional(),
  /** `im` for a direct message; `channel`, `group`, `mpim` for channels and group DMs (message.* events only). */
  channel_type: z.string().optional(),
  /** In a thread: who wrote the message the thread hangs under. */
  parent_user_id: z.string().optional(),
  /**
   * Files shared with the message (docs.slack.dev/reference/objects/file-object): fetched from
   * `url_private_download` with the bot token (needs the `files:read` scope).
   */
  files: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        mimetype: z.string().optional(),
        size: z.int().optional(),
        url_private_download: z.string().optional(),
        url_private: z.string().optional(),
      }),
    )
    .optional(),
});

const userMessageCallbackSchema = z.looseObject({ event: userMessageSchema });

const MESSAGE_EVENTS = new Set(['message', 'app_mention']);

export interface SlackParseOptions {
  /**
   * The bot's own user id, whose messages are ignored and whose `<@id>` in a text is a mention.
   * Without it, the envelope's `authorizations[].user_id` of the bot is used.
   */
  botUserId?: string | undefined;
}

/**
 * Turns a verified Events API body into what the API must do: answer `url_verification`, queue a
 * user's message (replying in its thread), or acknowledge and ignore everything else.
 *
 * @throws AppError 400 when the body is not an Events API envelope.
 */
export function parseSlackEvent(body: unknown, options: SlackParseOptions = {}): Inbound {
  const envelope = parseWith(envelopeSchema, body);
  if (envelope.type === 'url_verification') {
    const { challenge } = parseWith(urlVerificationSchema, body);
    return { kind: 'answer', answer: { status: 200, body: { challenge } } };
  }
  if (envelope.type !== 'event_callback') return { kind: 'answer', answer: okAnswer() };

  const callback = parseWith(eventCallbackSchema, body);
  if (!MESSAGE_EVENTS.has(callback.event.type)) return { kind: 'answer', answer: okAnswer() };
  const kind = senderKindSchema.parse(callback.event);
  // `file_share` is a user's message with files (docs.slack.dev/reference/events/message/file_share).
  if (kind.bot_id != null || (kind.subtype != null && kind.subtype !== 'file_share'))
    return { kind: 'answer', answer: okAnswer() };

  const event = parseWith(userMessageCallbackSchema, body).event;
  const botUserId = options.botUserId ?? callback.authorizations?.find((a) => a.is_bot !== false && a.user_id)?.user_id;
  // Answering our own posts would loop forever; bot_id catches most, botUserId the rest.
  if (botUserId && event.user === botUserId) return { kind: 'answer', answer: okAnswer() };
  const mentioned = botUserId !== undefined && mentions(event.text, botUserId);
  // The bot's own mention is how the message reached it, not part of the question.
  const text = mentioned ? withoutMentionOf(event.text, botUserId) : event.text;
  const media = slackMedia(event.files);
  if (text.trim() === '' && media.length === 0) return { kind: 'answer', answer: okAnswer() };

  const team = event.user_team ?? event.team ?? callback.team_id;
  // A top-level message starts a thread: the reply goes under it, and that thread is the conversation.
  const thread = event.thread_ts ?? event.ts;
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text,
      from: event.user,
      ...(media.length ? { media } : {}),
      // app_mention has no channel_type: it only happens where others can read it.
      place: event.channel_type === 'im' ? 'direct' : 'group',
      addressed:
        callback.event.type === 'app_mention' || mentioned || (botUserId !== undefined && event.parent_user_id === botUserId),
      conversation: `${event.channel}:${thread}`,
      // One Slack message, one answer: a retry repeats the event, and a mention arrives both as
      // `message` and as `app_mention` (different event_ids, same channel and ts).
      dedupeKey: `${event.channel}:${event.ts}`,
      // A native stream is for the sender: chat.startStream's recipient_team_id is "the team the
      // user receiving the streaming text belongs to" (docs.slack.dev/reference/methods/chat.startStream),
      // which in a Slack Connect channel is not the workspace the event came through.
      replyTo: { channel: event.channel, thread_ts: thread, ...(team ? { team } : {}) },
    },
    ack: () => okAnswer(),
  };
}

/** Slack writes a mention as `<@U123>` or `<@U123|name>` (docs.slack.dev/messaging/formatting-message-text). */
function mentions(text: string, userId: string): boolean {
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}

/** The text without `<@bot>` / `<@bot|name>`, spaces tidied. */
function withoutMentionOf(text: string, userId: string): string {
  return text
    .split(new RegExp(`<@${userId.replace(/[^A-Za-z0-9]/g, '')}(?:\\|[^>]*)?>`))
    .join(' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** The files of a message by their download URL (a file without one, e.g. an external link, is skipped). */
function slackMedia(files: z.output<typeof userMessageSchema>['files']): MediaRef[] {
  return (files ?? []).slice(0, 10).flatMap((file) => {
    const ref = file.url_private_download ?? file.url_private;
    if (!ref) return [];
    return [
      {
        kind: mediaKindOf(file.mimetype),
        ref,
        ...(file.name ? { name: file.name.slice(0, 256) } : {}),
        ...(file.mimetype ? { type: file.mimetype.slice(0, 128) } : {}),
        ...(file.size !== undefined && file.size >= 0 ? { size: file.size } : {}),
      },
    ];
  });
}
