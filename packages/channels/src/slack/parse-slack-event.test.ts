import { slackMessageEvent } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseSlackEvent } from './parse-slack-event.js';

const ignored = { kind: 'answer', answer: { status: 200, body: { ok: true } } };

describe('parseSlackEvent', () => {
  it('answers url_verification with the challenge', () => {
    const body = {
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    };
    expect(parseSlackEvent(body)).toEqual({
      kind: 'answer',
      answer: { status: 200, body: { challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' } },
    });
  });

  it('queues a user message, replying in a new thread under it', () => {
    const inbound = parseSlackEvent(slackMessageEvent());
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'What is a monad?',
      from: 'U0456',
      place: 'group',
      addressed: false,
      conversation: 'C0123:1736942400.000100',
      dedupeKey: 'C0123:1736942400.000100',
      replyTo: { channel: 'C0123', thread_ts: '1736942400.000100', team: 'T0001' },
    });
    expect(inbound.ack('job-1', false)).toEqual({ status: 200, body: { ok: true } });
  });

  it("queues a file_share message with its files' url_private_download, even without text", () => {
    const file = {
      id: 'F0123',
      name: 'chart.png',
      mimetype: 'image/png',
      size: 2048,
      url_private: 'https://files.slack.com/files-pri/T0001-F0123/chart.png',
      url_private_download: 'https://files.slack.com/files-pri/T0001-F0123/download/chart.png',
    };
    const inbound = parseSlackEvent(slackMessageEvent({ subtype: 'file_share', text: '', files: [file] }));
    expect(inbound).toMatchObject({
      kind: 'message',
      message: {
        text: '',
        media: [{ kind: 'image', ref: file.url_private_download, name: 'chart.png', type: 'image/png', size: 2048 }],
      },
    });
    expect(parseSlackEvent(slackMessageEvent({ subtype: 'message_changed', files: [file] }))).toEqual(ignored);
  });

  it('gives a mention the same dedupe key whether it comes as message or app_mention', () => {
    const asMessage = parseSlackEvent(slackMessageEvent({}, { event_id: 'Ev1' }));
    const asMention = parseSlackEvent(slackMessageEvent({ type: 'app_mention' }, { event_id: 'Ev2' }));
    if (asMessage.kind !== 'message' || asMention.kind !== 'message') throw new Error('expected messages');
    expect(asMention.message.dedupeKey).toBe(asMessage.message.dedupeKey);
  });

  it('keeps a threaded message in its thread', () => {
    const inbound = parseSlackEvent(slackMessageEvent({ ts: '1736942500.000200', thread_ts: '1736942400.000100' }));
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({
      conversation: 'C0123:1736942400.000100',
      replyTo: { channel: 'C0123', thread_ts: '1736942400.000100', team: 'T0001' },
    });
  });

  it("names the sender's own team for a native stream, not the workspace the event came through (Slack Connect)", () => {
    const message = parseSlackEvent(slackMessageEvent({ user: 'U0EXT', team: 'T0EXT' }));
    expect(message.kind === 'message' && message.message.replyTo).toMatchObject({ team: 'T0EXT' });
    const mention = parseSlackEvent(slackMessageEvent({ type: 'app_mention', user: 'U0EXT', team: 'T0001', user_team: 'T0EXT' }));
    expect(mention.kind === 'message' && mention.message.replyTo).toMatchObject({ team: 'T0EXT' });
  });

  it('queues an app_mention like a message, addressed to the bot, without its mention in the text', () => {
    const inbound = parseSlackEvent(slackMessageEvent({ type: 'app_mention', text: '<@U0BOT> hello' }));
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({ text: 'hello', place: 'group', addressed: true });
  });

  it("says where a message was written and whether it addresses the bot (its id from the config, else the event's authorizations)", () => {
    const read = (event: Record<string, unknown>, botUserId?: string) => {
      const inbound = parseSlackEvent(slackMessageEvent(event), { botUserId });
      if (inbound.kind !== 'message') throw new Error('expected a message');
      return { text: inbound.message.text, place: inbound.message.place, addressed: inbound.message.addressed };
    };
    expect(read({ channel: 'D0123', channel_type: 'im', text: 'hi' })).toEqual({ text: 'hi', place: 'direct', addressed: false });
    expect(read({ channel_type: 'mpim', text: 'hi' }).place).toBe('group');
    expect(read({ text: 'ask <@U0BOT|bot> this' })).toEqual({ text: 'ask this', place: 'group', addressed: true });
    expect(read({ text: '<@U0BOT> ping' }, 'U0BOT').addressed).toBe(true);
    expect(read({ text: 'hi <@U0OTHER>' }).addressed).toBe(false);
    expect(read({ text: '<@U0ME> hi' }, 'U0ME')).toMatchObject({ text: 'hi', addressed: true });
    expect(read({ text: 'in the thread', thread_ts: '1.0', parent_user_id: 'U0BOT' }).addressed).toBe(true);
    expect(parseSlackEvent(slackMessageEvent({ text: '<@U0BOT>' }))).toEqual(ignored);
  });

  it('ignores messages from bots, including itself', () => {
    expect(parseSlackEvent(slackMessageEvent({ bot_id: 'B0123' }))).toEqual(ignored);
    expect(parseSlackEvent(slackMessageEvent({ user: 'U0BOT' }), { botUserId: 'U0BOT' })).toEqual(ignored);
  });

  it('ignores every message subtype', () => {
    for (const subtype of ['message_changed', 'message_deleted', 'channel_join', 'bot_message', 'thread_broadcast']) {
      // Edits and deletions carry no top-level user or text; they must still be ignored, not refused.
      const event = { type: 'message', subtype, channel: 'C0123', ts: '1736942400.000100', hidden: true };
      expect(parseSlackEvent({ ...slackMessageEvent(), event })).toEqual(ignored);
    }
  });

  it('ignores messages with empty or blank text', () => {
    expect(parseSlackEvent(slackMessageEvent({ text: '' }))).toEqual(ignored);
    expect(parseSlackEvent(slackMessageEvent({ text: ' \n' }))).toEqual(ignored);
    expect(parseSlackEvent(slackMessageEvent({ text: undefined }))).toEqual(ignored);
  });

  it('ignores other event types and envelope types', () => {
    expect(parseSlackEvent(slackMessageEvent({ type: 'reaction_added' }))).toEqual(ignored);
    expect(parseSlackEvent({ type: 'app_rate_limited', team_id: 'T0001', minute_rate_limited: 1518467820 })).toEqual(ignored);
  });

  it('answers 400 naming the field for a malformed envelope or message', () => {
    expect(appErrorFrom(() => parseSlackEvent([])).status).toBe(400);
    expect(appErrorFrom(() => parseSlackEvent({ type: 'url_verification' })).param).toBe('challenge');
    expect(appErrorFrom(() => parseSlackEvent(slackMessageEvent({}, { event_id: undefined }))).param).toBe('event_id');
    expect(appErrorFrom(() => parseSlackEvent(slackMessageEvent({ channel: undefined }))).param).toBe('event.channel');
    expect(appErrorFrom(() => parseSlackEvent(slackMessageEvent({ user: 42 }))).param).toBe('event.user');
  });
});
