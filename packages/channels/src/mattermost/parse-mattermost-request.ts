import type { MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';

/**
 * An outgoing webhook's post or a slash command, as Mattermost sends either (form fields are all
 * strings; JSON may carry numbers, such as `timestamp`). Loose: only what is named is read.
 */
const requestSchema = z.looseObject({
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  text: z.string().default(''),
  /** Outgoing webhooks: the post that triggered it, and the trigger word it starts with. */
  post_id: z.string().min(1).optional(),
  trigger_word: z.string().optional(),
  /** Slash commands: `/ask`, and the id Mattermost gives this one use of it. */
  command: z.string().optional(),
  trigger_id: z.string().min(1).optional(),
  /** Sent by newer servers for a command run inside a thread. */
  root_id: z.string().optional(),
  /** A direct channel is named after its two members' ids: `<id>__<id>`. */
  channel_name: z.string().optional(),
  user_name: z.string().optional(),
  /**
   * Outgoing webhooks: the post's files, their ids joined by commas (the server's
   * `OutgoingWebhookPayload.FileIds`); fetched with `GET /api/v4/files/{id}` and the bot token.
   */
  file_ids: z.string().optional(),
});

/** How Mattermost names a direct-message channel: the two user ids (26 characters each) joined by `__`. */
const DIRECT_CHANNEL = /^[a-z0-9]{26}__[a-z0-9]{26}$/;

export interface MattermostParseOptions {
  /** The bot's own user id, whose posts are ignored. */
  botUserId?: string | undefined;
}

/** What Mattermost expects back when we post the reply ourselves: nothing to post now. */
const nothingNow = () => ({ status: 200, body: {} });

/**
 * Turns a verified request into a queued message or an acknowledgement. The trigger word that
 * fired an outgoing webhook is not part of the question. Replies go to the same channel, in the
 * post's thread (an outgoing webhook) or the command's thread when it ran in one.
 *
 * @throws AppError 400 when the request lacks a channel or a user.
 */
export function parseMattermostRequest(fields: unknown, options: MattermostParseOptions = {}): Inbound {
  const request = parseWith(requestSchema, fields);
  if (options.botUserId && request.user_id === options.botUserId) return { kind: 'answer', answer: okAnswer() };
  const trigger = request.trigger_word;
  const text = (trigger && request.text.startsWith(trigger) ? request.text.slice(trigger.length) : request.text).trim();
  const media: MediaRef[] = (request.file_ids ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => /^[a-z0-9]{26}$/.test(id))
    .slice(0, 10)
    .map((id) => ({ kind: 'file', ref: id }));
  if (text === '' && media.length === 0) return { kind: 'answer', answer: okAnswer() };
  const root = request.root_id || undefined;
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text,
      from: request.user_id,
      ...(media.length ? { media } : {}),
      ...(request.user_name ? { fromName: request.user_name } : {}),
      place: request.channel_name && DIRECT_CHANNEL.test(request.channel_name) ? 'direct' : 'group',
      // A slash command names the bot; an outgoing webhook fires on its trigger word, which is the bot's name.
      addressed: Boolean(request.command || trigger),
      // Outgoing webhooks do not say which thread a post is in, so memory follows the user in the channel.
      conversation: `${request.channel_id}:${request.user_id}`,
      dedupeKey: request.post_id ?? request.trigger_id ?? null,
      replyTo: {
        channel_id: request.channel_id,
        ...(request.post_id ? { post_id: request.post_id } : {}),
        ...(root ? { root_id: root } : {}),
      },
    },
    ack: nothingNow,
  };
}
