import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';

/**
 * A Bot API `Update`. Loose throughout: Telegram adds update kinds and message fields often, and
 * only `update_id` and a text `message` matter here. `edited_message`, `channel_post`,
 * `callback_query`… are simply not read, so they are acknowledged and ignored.
 */
const updateSchema = z.looseObject({
  update_id: z.int(),
  message: z.unknown().optional(),
});

const textMessageSchema = z.looseObject({
  message: z.looseObject({
    message_id: z.int(),
    // Absent on messages sent on behalf of a chat; those have no user to answer.
    from: z.looseObject({ id: z.int() }).optional(),
    chat: z.looseObject({ id: z.int() }),
    text: z.string().optional(),
    // A forum topic's messages carry its id; replies in groups without topics carry one too,
    // which names no topic there, so only `is_topic_message` makes it the place to answer in.
    message_thread_id: z.int().optional(),
    is_topic_message: z.boolean().optional(),
  }),
});

/**
 * Turns a verified update into a queued message (a reply to it, in its chat) or an acknowledgement.
 * `/start` and other commands are ordinary text.
 *
 * @throws AppError 400 when the body is not an update.
 */
export function parseTelegramUpdate(body: unknown): Inbound {
  const update = parseWith(updateSchema, body);
  if (update.message === undefined) return { kind: 'answer', answer: okAnswer() };
  const { message } = parseWith(textMessageSchema, body);
  if (!message.from || message.text === undefined || message.text.trim() === '') {
    return { kind: 'answer', answer: okAnswer() };
  }
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text: message.text,
      from: String(message.from.id),
      conversation: String(message.chat.id),
      dedupeKey: String(update.update_id),
      // In a forum topic every piece of the reply names the topic (only the first is a reply,
      // and a message that is no reply without `message_thread_id` lands in General).
      replyTo: {
        chat_id: message.chat.id,
        message_id: message.message_id,
        ...(message.is_topic_message && message.message_thread_id !== undefined
          ? { message_thread_id: message.message_thread_id }
          : {}),
      },
    },
    ack: () => okAnswer(),
  };
}
