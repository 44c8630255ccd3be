import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';

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
});

const userMessageCallbackSchema = z.looseObject({ event: userMessageSchema });

const MESSAGE_EVENTS = new Set(['message', 'app_mention']);

export interface SlackParseOptions {
  /** The bot's own user id, whose messages are ignored. */
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
  if (kind.bot_id != null || kind.subtype != null) return { kind: 'answer', answer: okAnswer() };

  const event = parseWith(userMessageCallbackSchema, body).event;
  // Answering our own posts would loop forever; bot_id catches most, botUserId the rest.
  if (options.botUserId && event.user === options.botUserId) return { kind: 'answer', answer: okAnswer() };
  if (event.text.trim() === '') return { kind: 'answer', answer: okAnswer() };

  const team = event.user_team ?? event.team ?? callback.team_id;
  // A top-level message starts a thread: the reply goes under it, and that thread is the conversation.
  const thread = event.thread_ts ?? event.ts;
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text: event.text,
      from: event.user,
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
