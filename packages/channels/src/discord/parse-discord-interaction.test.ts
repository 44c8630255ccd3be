import { discordCommand } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseDiscordInteraction } from './parse-discord-interaction.js';

const pleaseGivePrompt = {
  kind: 'answer',
  answer: { status: 200, body: { type: 4, data: { content: 'Please give a prompt.', flags: 64 } } },
};

describe('parseDiscordInteraction', () => {
  it('answers PING with PONG', () => {
    expect(parseDiscordInteraction({ id: '1', application_id: '2', type: 1, token: 't', version: 1 })).toEqual({
      kind: 'answer',
      answer: { status: 200, body: { type: 1 } },
    });
  });

  it('queues a slash command prompt and acknowledges it with a deferred response', () => {
    const inbound = parseDiscordInteraction(discordCommand());
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'What is a monad?',
      from: '800000000000000003',
      fromName: 'Ada',
      place: 'group',
      addressed: true,
      conversation: '900000000000000002:800000000000000003',
      dedupeKey: '1329481234567890123',
      replyTo: { token: 'aW50ZXJhY3Rpb246MTMyOTQ4MTIzNDU2Nzg5MDEyMzpzZWNyZXQ', channel_id: '900000000000000002' },
    });
    expect(inbound.ack('job-1', false)).toEqual({ status: 200, body: { type: 5 } });
  });

  it('finds the prompt inside a subcommand group and subcommand', () => {
    const data = {
      id: '1200000000000000004',
      name: 'bot',
      type: 1,
      options: [
        { name: 'ai', type: 2, options: [{ name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: 'nested' }] }] },
      ],
    };
    const inbound = parseDiscordInteraction(discordCommand({ data }));
    expect(inbound.kind === 'message' && inbound.message.text).toBe('nested');
  });

  it('takes the first string option as the prompt', () => {
    const options = [
      { name: 'private', type: 5, value: true },
      { name: 'prompt', type: 3, value: 'first' },
      { name: 'style', type: 3, value: 'second' },
    ];
    const inbound = parseDiscordInteraction(discordCommand({ data: { id: '1', name: 'ask', type: 1, options } }));
    expect(inbound.kind === 'message' && inbound.message.text).toBe('first');
  });

  it('takes the user from a DM interaction and the channel from channel.id', () => {
    const inbound = parseDiscordInteraction(
      discordCommand({
        member: undefined,
        guild_id: undefined,
        channel_id: undefined,
        user: { id: '700' },
        channel: { id: '600', type: 1 },
      }),
    );
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({
      from: '700',
      conversation: '600:700',
      place: 'direct',
    });
  });

  it('answers a command the hook\'s access drops with an ephemeral notice, not a deferred "thinking…" that never ends', () => {
    const inbound = parseDiscordInteraction(discordCommand());
    expect(inbound.kind === 'message' && inbound.ignored?.()).toEqual({
      status: 200,
      body: { type: 4, data: { content: 'This bot does not answer here.', flags: 64 } },
    });
  });

  it('keeps a file given to an attachment option by its CDN URL, with a voice message’s length, even without a prompt', () => {
    const attachment = {
      id: '1300000000000000009',
      filename: 'voice-message.ogg',
      content_type: 'audio/ogg',
      size: 9000,
      url: 'https://cdn.discordapp.com/attachments/1/2/voice-message.ogg?ex=1&is=2&hm=3',
      proxy_url: 'https://media.discordapp.net/attachments/1/2/voice-message.ogg',
      duration_secs: 14.2,
    };
    const inbound = parseDiscordInteraction(
      discordCommand({
        data: {
          id: '1',
          name: 'ask',
          type: 1,
          options: [{ name: 'file', type: 11, value: attachment.id }],
          resolved: { attachments: { [attachment.id]: attachment } },
        },
      }),
    );
    expect(inbound).toMatchObject({
      kind: 'message',
      message: {
        text: '',
        media: [{ kind: 'audio', ref: attachment.url, name: 'voice-message.ogg', type: 'audio/ogg', size: 9000, seconds: 14.2 }],
      },
    });
  });

  it('answers with an ephemeral hint, queuing nothing, when the command has no prompt', () => {
    expect(parseDiscordInteraction(discordCommand({ data: { id: '1', name: 'ask', type: 1 } }))).toEqual(pleaseGivePrompt);
    const onlyBoolean = { id: '1', name: 'ask', type: 1, options: [{ name: 'private', type: 5, value: true }] };
    expect(parseDiscordInteraction(discordCommand({ data: onlyBoolean }))).toEqual(pleaseGivePrompt);
    const blank = { id: '1', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: '  ' }] };
    expect(parseDiscordInteraction(discordCommand({ data: blank }))).toEqual(pleaseGivePrompt);
  });

  it('reads a press of an approval button (MESSAGE_COMPONENT) as a click, and acknowledges other components unchanged', () => {
    const press = (custom_id: string) =>
      parseDiscordInteraction(
        discordCommand({ type: 3, data: { custom_id, component_type: 2 }, message: { id: '1329481300000000009' } }),
      );
    expect(press('n 0123456789abcdef0123456789abcdef 1:0')).toEqual({
      kind: 'click',
      click: {
        jobRef: '0123456789abcdef0123456789abcdef',
        key: '1:0',
        jobId: '',
        approve: false,
        user: '800000000000000003',
        userName: 'Ada',
        prompt: { message_id: '1329481300000000009' },
        reply: {},
      },
    });
    expect(press('someone-elses-button')).toEqual({ kind: 'answer', answer: { status: 200, body: { type: 6 } } });
    expect(appErrorFrom(() => parseDiscordInteraction(discordCommand({ type: 3 }))).param).toBe('data.custom_id');
  });

  it('answers 400 for other interaction types', () => {
    for (const type of [4, 5]) {
      const error = appErrorFrom(() => parseDiscordInteraction(discordCommand({ type })));
      expect(error.status).toBe(400);
      expect(error.param).toBe('type');
    }
  });

  it('answers 400 naming the field for a malformed interaction', () => {
    expect(appErrorFrom(() => parseDiscordInteraction({})).param).toBe('type');
    expect(appErrorFrom(() => parseDiscordInteraction(discordCommand({ token: undefined }))).param).toBe('token');
    expect(appErrorFrom(() => parseDiscordInteraction(discordCommand({ id: 5 }))).param).toBe('id');
    expect(appErrorFrom(() => parseDiscordInteraction(discordCommand({ member: undefined }))).param).toBe('user');
    expect(appErrorFrom(() => parseDiscordInteraction(discordCommand({ channel_id: undefined, channel: undefined }))).param).toBe(
      'channel_id',
    );
  });
});
