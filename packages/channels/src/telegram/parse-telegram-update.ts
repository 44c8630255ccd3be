import type { MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';
import { mediaKindOf } from '../media/media-kind.js';

/**
 * A Bot API `Update`. Loose throughout: Telegram adds update kinds and message fields often, and
 * only `update_id` and a text `message` matter here. `edited_message`, `channel_post`,
 * `callback_query`… are simply not read, so they are acknowledged and ignored.
 */
const updateSchema = z.looseObject({
  update_id: z.int(),
  message: z.unknown().optional(),
});

/** What a document, voice note and audio file have in common (https://core.telegram.org/bots/api#document). */
const fileSchema = z.looseObject({
  file_id: z.string().min(1),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
  file_size: z.int().optional(),
});

const textMessageSchema = z.looseObject({
  message: z.looseObject({
    message_id: z.int(),
    // Absent on messages sent on behalf of a chat; those have no user to answer.
    from: z.looseObject({ id: z.int(), first_name: z.string().optional(), username: z.string().optional() }).optional(),
    /** `private`, `group`, `supergroup` or `channel` (https://core.telegram.org/bots/api#chat). */
    chat: z.looseObject({ id: z.int(), type: z.string().optional() }),
    text: z.string().optional(),
    /**
     * A photo in the sizes Telegram made of it, smallest first; a file sent as a document; the
     * text that came with either (https://core.telegram.org/bots/api#message, #photosize, #document).
     */
    photo: z.array(z.looseObject({ file_id: z.string().min(1), file_size: z.int().optional() })).optional(),
    document: fileSchema.optional(),
    /**
     * A voice note (OGG/Opus; no name) and an audio file, each with its length in seconds
     * (https://core.telegram.org/bots/api#voice, #audio).
     */
    voice: fileSchema.extend({ duration: z.number().nonnegative().optional() }).optional(),
    audio: fileSchema.extend({ duration: z.number().nonnegative().optional() }).optional(),
    caption: z.string().optional(),
    caption_entities: z.array(z.looseObject({ type: z.string(), offset: z.int().min(0), length: z.int().min(0) })).optional(),
    /** Mentions and commands in the text, by UTF-16 offset (https://core.telegram.org/bots/api#messageentity). */
    entities: z
      .array(
        z.looseObject({
          type: z.string(),
          offset: z.int().min(0),
          length: z.int().min(0),
          user: z.looseObject({ id: z.int() }).optional(),
        }),
      )
      .optional(),
    reply_to_message: z.looseObject({ from: z.looseObject({ id: z.int() }).optional() }).optional(),
    // A forum topic's messages carry its id; replies in groups without topics carry one too,
    // which names no topic there, so only `is_topic_message` makes it the place to answer in.
    message_thread_id: z.int().optional(),
    is_topic_message: z.boolean().optional(),
  }),
});

export interface TelegramParseOptions {
  /** The bot's own user id (getMe's `id`; telegram-channel.ts reads it from the token). */
  botId?: number | undefined;
  /** The bot's @username without the @ (getMe's `username`), for `mention` entities and `/help@bot`. */
  botUsername?: string | undefined;
}

/**
 * Turns a verified update into a queued message (a reply to it, in its chat) or an acknowledgement.
 * `/start` and other commands are ordinary text here (the API reads them); a command addressed to
 * another bot (`/help@otherbot`) is not addressed to this one.
 *
 * @throws AppError 400 when the body is not an update.
 */
export function parseTelegramUpdate(body: unknown, options: TelegramParseOptions = {}): Inbound {
  const update = parseWith(updateSchema, body);
  if (update.message === undefined) return { kind: 'answer', answer: okAnswer() };
  const { message: sent } = parseWith(textMessageSchema, body);
  // A photo's or document's words are its caption, mentions included.
  const message =
    sent.text === undefined && sent.caption !== undefined
      ? { ...sent, text: sent.caption, entities: sent.caption_entities }
      : sent;
  const media = mediaOf(message);
  const topic = message.is_topic_message ? message.message_thread_id : undefined;
  if (!message.from || ((message.text === undefined || message.text.trim() === '') && media.length === 0)) {
    return { kind: 'answer', answer: okAnswer() };
  }
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text: message.text ?? '',
      from: String(message.from.id),
      ...(media.length ? { media } : {}),
      ...(message.from.first_name ? { fromName: message.from.first_name } : {}),
      place: message.chat.type === 'private' ? 'direct' : 'group',
      addressed: addressesBot(message, options),
      // Each forum topic is a conversation of its own, as a Slack thread is; General and chats
      // without topics keep the chat's id, the key they always had.
      conversation: topic === undefined ? String(message.chat.id) : `${message.chat.id}:${topic}`,
      dedupeKey: String(update.update_id),
      // In a forum topic every piece of the reply names the topic (only the first is a reply,
      // and a message that is no reply without `message_thread_id` lands in General).
      replyTo: {
        chat_id: message.chat.id,
        message_id: message.message_id,
        ...(topic === undefined ? {} : { message_thread_id: topic }),
      },
    },
    ack: () => okAnswer(),
  };
}

type TextMessage = z.output<typeof textMessageSchema>['message'];

/**
 * A mention of the bot (`@username`, or a `text_mention` of its id), a command sent to it by name
 * (`/help@username`), or a reply to one of its messages.
 */
function addressesBot(message: TextMessage, { botId, botUsername }: TelegramParseOptions): boolean {
  if (botId !== undefined && message.reply_to_message?.from?.id === botId) return true;
  const text = message.text ?? '';
  const handle = botUsername ? `@${botUsername.replace(/^@/, '').toLowerCase()}` : undefined;
  for (const entity of message.entities ?? []) {
    const written = text.slice(entity.offset, entity.offset + entity.length).toLowerCase();
    if (entity.type === 'text_mention' && botId !== undefined && entity.user?.id === botId) return true;
    if (entity.type === 'mention' && handle && written === handle) return true;
    if (entity.type === 'bot_command' && handle && written.endsWith(handle)) return true;
  }
  return false;
}

/**
 * The files a message carries: a photo's largest size (the last), a document with its name and
 * type, a voice note or audio file with its length.
 */
function mediaOf(message: TextMessage): MediaRef[] {
  const media: MediaRef[] = [];
  const largest = message.photo?.at(-1);
  if (largest) {
    media.push({
      kind: 'image',
      ref: largest.file_id,
      name: 'photo.jpg',
      ...(largest.file_size ? { size: largest.file_size } : {}),
    });
  }
  const document = message.document;
  if (document) {
    media.push({
      kind: mediaKindOf(document.mime_type),
      ref: document.file_id,
      ...(document.file_name ? { name: document.file_name.slice(0, 256) } : {}),
      ...(document.mime_type ? { type: document.mime_type.slice(0, 128) } : {}),
      ...(document.file_size ? { size: document.file_size } : {}),
    });
  }
  for (const [sound, name] of [
    [message.voice, 'voice.ogg'],
    [message.audio, 'audio'],
  ] as const) {
    if (!sound) continue;
    media.push({
      kind: 'audio',
      ref: sound.file_id,
      name: (sound.file_name ?? name).slice(0, 256),
      ...(sound.mime_type ? { type: sound.mime_type.slice(0, 128) } : {}),
      ...(sound.file_size ? { size: sound.file_size } : {}),
      ...(sound.duration !== undefined ? { seconds: Math.min(sound.duration, 86_400) } : {}),
    });
  }
  return media;
}
