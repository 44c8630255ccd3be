import { describe, expect, it } from 'vitest';
import { conversationKey, queuedTraceparent, readQueuedMessage } from './hook-message.js';

const message = {
  action: 'chat',
  text: 'hi',
  from: 'U1',
  conversation: 'C1:1.0',
  dedupeKey: 'C1:1.0',
  replyTo: { channel: 'C1' },
};

describe('readQueuedMessage', () => {
  it("reads a version-4 message as it is: a fixed reply, the place and the sender's name included", () => {
    const say = { ...message, action: 'say', reply: 'Your code: ABCD-2345', place: 'direct', addressed: false, fromName: 'Ann' };
    const data = { v: 4, hook: 'team', message: say, receivedAt: 1, waits: false };
    expect(readQueuedMessage(data)).toEqual({ message: data, legacy: null });
  });

  it('reads the media references of a version-4 message, and refuses one without a reference', () => {
    const media = [{ kind: 'image', ref: 'AgACAgQ', name: 'photo.jpg', size: 1024 }];
    const data = { v: 4, hook: 'tg', message: { ...message, text: '', media }, receivedAt: 1, waits: false };
    expect(readQueuedMessage(data)).toEqual({ message: data, legacy: null });
    const broken = { ...data, message: { ...data.message, media: [{ kind: 'image' }] } };
    expect(readQueuedMessage(broken)).toBeNull();
  });

  it('reads a version-3 message queued by the previous release as version 4, the hook it delivers through included', () => {
    const data = {
      v: 3,
      hook: 'github',
      message: { ...message, deliverVia: { hook: 'team', target: { channel: 'C9' } } },
      receivedAt: 1,
      waits: true,
    };
    expect(readQueuedMessage(data)).toEqual({ message: { ...data, v: 4 }, legacy: null });
  });

  it('does not read a version-3 message with an action only version 4 has', () => {
    expect(
      readQueuedMessage({ v: 3, hook: 'team', message: { ...message, action: 'say' }, receivedAt: 1, waits: false }),
    ).toBeNull();
  });

  it('reads a version-2 message queued by an earlier release as version 4', () => {
    const data = { v: 2, hook: 'team', message, receivedAt: 1, waits: true };
    expect(readQueuedMessage(data)).toEqual({ message: { ...data, v: 4 }, legacy: null });
  });

  it('keeps the trace a message was queued with, and reads one queued without it', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const data = { v: 4, hook: 'team', message, receivedAt: 1, waits: false, trace: traceparent };
    expect(readQueuedMessage(data)?.message.trace).toBe(traceparent);
    expect(queuedTraceparent(data)).toBe(traceparent);
    const { trace: _, ...untraced } = data;
    expect(readQueuedMessage(untraced)?.message).toEqual(untraced);
    expect(queuedTraceparent(untraced)).toBeUndefined();
    expect(queuedTraceparent(null)).toBeUndefined();
  });

  it('upgrades a job queued by the previous release, keeping what it had done', () => {
    const v1 = {
      hook: 'team',
      message,
      receivedAt: 1,
      after: 'team-abc',
      reply: { text: 'hello', model: 'mock/gpt', created: 2 },
      historySaved: true,
      delivered: 1,
    };
    expect(readQueuedMessage(v1)).toEqual({
      message: { v: 4, hook: 'team', message, receivedAt: 1, waits: false },
      legacy: { reply: { text: 'hello', model: 'mock/gpt', created: 2 }, historySaved: true, delivered: 1 },
    });
    expect(readQueuedMessage({ hook: 'team', message, receivedAt: 1, after: null })?.legacy).toEqual({
      historySaved: false,
      delivered: 0,
    });
  });

  it('reads nothing from data that is no hook message, or of a version it does not know', () => {
    expect(readQueuedMessage({ v: 5, hook: 'team', message, receivedAt: 1, waits: false })).toBeNull();
    expect(readQueuedMessage({ text: 'hi' })).toBeNull();
    expect(readQueuedMessage(null)).toBeNull();
  });
});

describe('conversationKey', () => {
  it('keys a conversation by its hook', () => {
    expect(conversationKey('team', 'C1:1.0')).toBe('team:C1:1.0');
    expect(conversationKey('team', 'x')).not.toBe(conversationKey('other', 'x'));
  });
});
