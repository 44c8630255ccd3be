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
  });

  it('treats /start as ordinary text', () => {
    const inbound = parseTelegramUpdate(
      telegramUpdate({ text: '/start', entities: [{ type: 'bot_command', offset: 0, length: 6 }] }),
    );
    expect(inbound.kind === 'message' && inbound.message.text).toBe('/start');
  });

  it('ignores edited messages', () => {
    const { message, ...rest } = telegramUpdate();
    expect(parseTelegramUpdate({ ...rest, edited_message: { ...message, edit_date: 1_736_942_500 } })).toEqual(ignored);
  });

  it('ignores messages without text, such as photos and stickers', () => {
    expect(parseTelegramUpdate(telegramUpdate({ text: undefined, photo: [{ file_id: 'AgAC', width: 90, height: 90 }] }))).toEqual(
      ignored,
    );
    expect(parseTelegramUpdate(telegramUpdate({ text: '   ' }))).toEqual(ignored);
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
