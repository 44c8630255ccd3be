import { telegramTopicMessage, telegramUpdate } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseTelegramUpdate } from './parse-telegram-update.js';

const ignored = { kind: 'answer', answer: { status: 200, body: { ok: true } } };

describe('parseTelegramUpdate', () => {
  it('queues a text message as a reply in its chat, deduplicated by update_id', () => {
    const inbound = parseTelegramUpdate(telegramUpdate());
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'What is a monad?',
      from: '111222333',
      fromName: 'Ada',
      place: 'group',
      addressed: false,
      conversation: '-100987654321',
      dedupeKey: '987654321',
      replyTo: { chat_id: -100_987_654_321, message_id: 42 },
    });
    expect(inbound.ack('job-1', false)).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers in the forum topic a message was written in', () => {
    const inbound = parseTelegramUpdate(telegramUpdate(telegramTopicMessage(77)));
    expect(inbound.kind === 'message' && inbound.message.replyTo).toEqual({
      chat_id: -100_987_654_321,
      message_id: 4242,
      message_thread_id: 77,
    });
  });

  it('names no topic for a reply in a group without topics (its message_thread_id is the reply thread)', () => {
    const inbound = parseTelegramUpdate(telegramUpdate({ message_thread_id: 40 }));
    expect(inbound.kind === 'message' && inbound.message.replyTo).toEqual({ chat_id: -100_987_654_321, message_id: 42 });
    expect(inbound.kind === 'message' && inbound.message.conversation).toBe('-100987654321');
  });

  it("keys a forum topic's messages to a conversation of their own; General keeps the chat's", () => {
    const conversation = (message: Record<string, unknown>) => {
      const inbound = parseTelegramUpdate(telegramUpdate(message));
      return inbound.kind === 'message' ? inbound.message.conversation : undefined;
    };
    expect(conversation(telegramTopicMessage(77))).toBe('-100987654321:77');
    expect(conversation(telegramTopicMessage(78))).toBe('-100987654321:78');
    expect(conversation({ chat: { id: -100_987_654_321, type: 'supergroup', is_forum: true } })).toBe('-100987654321');
  });

  it('treats /start as ordinary text', () => {
    const inbound = parseTelegramUpdate(
      telegramUpdate({ text: '/start', entities: [{ type: 'bot_command', offset: 0, length: 6 }] }),
    );
    expect(inbound.kind === 'message' && inbound.message.text).toBe('/start');
  });

  it('says whether a message is private or in a group, and whether it mentions the bot, names it in a command or replies to it', () => {
    const bot = { botId: 110_201_543, botUsername: 'Switchboard_Bot' };
    const read = (message: Record<string, unknown>, options = bot) => {
      const inbound = parseTelegramUpdate(telegramUpdate(message), options);
      if (inbound.kind !== 'message') throw new Error('expected a message');
      return { place: inbound.message.place, addressed: inbound.message.addressed };
    };
    expect(read({ chat: { id: 111_222_333, type: 'private', first_name: 'Ada' } }).place).toBe('direct');
    expect(read({})).toEqual({ place: 'group', addressed: false });
    const mention = (text: string, type = 'mention') => ({
      text,
      entities: [{ type, offset: 0, length: text.split(' ')[0]!.length }],
    });
    expect(read(mention('@switchboard_bot hi')).addressed).toBe(true);
    expect(read(mention('@other_bot hi')).addressed).toBe(false);
    expect(read(mention('@switchboard_bot hi'), { ...bot, botUsername: undefined as unknown as string }).addressed).toBe(false);
    expect(read(mention('/help@switchboard_bot', 'bot_command')).addressed).toBe(true);
    expect(read(mention('/help@other_bot', 'bot_command')).addressed).toBe(false);
    expect(read(mention('/help', 'bot_command')).addressed).toBe(false);
    const textMention = {
      text: 'Bot hi',
      entities: [{ type: 'text_mention', offset: 0, length: 3, user: { id: 110_201_543, is_bot: true, first_name: 'Bot' } }],
    };
    expect(read(textMention).addressed).toBe(true);
    const replyTo = (id: number) => ({
      reply_to_message: { message_id: 1, date: 1, chat: { id: -1, type: 'group' }, from: { id, is_bot: true, first_name: 'B' } },
    });
    expect(read(replyTo(110_201_543)).addressed).toBe(true);
    expect(read(replyTo(5)).addressed).toBe(false);
  });

  it('ignores edited messages', () => {
    const { message, ...rest } = telegramUpdate();
    expect(parseTelegramUpdate({ ...rest, edited_message: { ...message, edit_date: 1_736_942_500 } })).toEqual(ignored);
  });

  it('ignores messages with neither text nor a file, such as stickers', () => {
    expect(parseTelegramUpdate(telegramUpdate({ text: undefined, sticker: { file_id: 'CAAC', width: 90, height: 90 } }))).toEqual(
      ignored,
    );
    expect(parseTelegramUpdate(telegramUpdate({ text: '   ' }))).toEqual(ignored);
  });

  it("records a photo's largest size and a document by file_id, with the caption as the text", () => {
    const photo = parseTelegramUpdate(
      telegramUpdate({
        text: undefined,
        caption: 'my receipt',
        photo: [
          { file_id: 'AgAC-small', file_unique_id: 'a', width: 90, height: 90, file_size: 1_000 },
          { file_id: 'AgAC-large', file_unique_id: 'b', width: 1280, height: 960, file_size: 90_000 },
        ],
      }),
    );
    expect(photo).toMatchObject({
      kind: 'message',
      message: { text: 'my receipt', media: [{ kind: 'image', ref: 'AgAC-large', name: 'photo.jpg', size: 90_000 }] },
    });
    const document = parseTelegramUpdate(
      telegramUpdate({
        text: undefined,
        document: { file_id: 'BQAC', file_unique_id: 'c', file_name: 'q3.pdf', mime_type: 'application/pdf', file_size: 5 },
      }),
    );
    expect(document).toMatchObject({
      message: { text: '', media: [{ kind: 'document', ref: 'BQAC', name: 'q3.pdf', type: 'application/pdf', size: 5 }] },
    });
  });

  it('records a voice note and an audio file by file_id, with their length in seconds', () => {
    const voice = parseTelegramUpdate(
      telegramUpdate({
        text: undefined,
        voice: { file_id: 'AwAC', file_unique_id: 'v', duration: 14, mime_type: 'audio/ogg', file_size: 22_000 },
      }),
    );
    expect(voice).toMatchObject({
      kind: 'message',
      message: {
        text: '',
        media: [{ kind: 'audio', ref: 'AwAC', name: 'voice.ogg', type: 'audio/ogg', size: 22_000, seconds: 14 }],
      },
    });
    const audio = parseTelegramUpdate(
      telegramUpdate({
        text: undefined,
        caption: 'listen',
        audio: { file_id: 'CQAC', file_unique_id: 'a', duration: 200, file_name: 'talk.mp3', mime_type: 'audio/mpeg' },
      }),
    );
    expect(audio).toMatchObject({
      message: { text: 'listen', media: [{ kind: 'audio', ref: 'CQAC', name: 'talk.mp3', type: 'audio/mpeg', seconds: 200 }] },
    });
  });

  it('ignores messages without a sender and other update kinds', () => {
    expect(parseTelegramUpdate(telegramUpdate({ from: undefined, sender_chat: { id: -100_1, type: 'channel' } }))).toEqual(
      ignored,
    );
    expect(parseTelegramUpdate({ update_id: 5, callback_query: { id: '1', data: 'x' } })).toEqual(ignored);
    expect(parseTelegramUpdate({ update_id: 6, channel_post: { message_id: 1, chat: { id: -1 }, text: 'hi' } })).toEqual(ignored);
  });

  it('answers 400 naming the field for a body that is not an update', () => {
    expect(appErrorFrom(() => parseTelegramUpdate({ message: {} })).param).toBe('update_id');
    expect(appErrorFrom(() => parseTelegramUpdate({ update_id: '5' })).param).toBe('update_id');
    expect(appErrorFrom(() => parseTelegramUpdate(telegramUpdate({ chat: undefined }))).param).toBe('message.chat');
    expect(appErrorFrom(() => parseTelegramUpdate(telegramUpdate({ message_id: 'x' }))).param).toBe('message.message_id');
    expect(appErrorFrom(() => parseTelegramUpdate('update')).status).toBe(400);
  });
});
