import { formBody, jsonRequest, mattermostOutgoing, mattermostSlashCommand } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseMattermostRequest } from './parse-mattermost-request.js';
import { readMattermostBody } from './read-mattermost-body.js';
import { verifyMattermostToken } from './verify-mattermost-token.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('parseMattermostRequest', () => {
  it('queues an outgoing webhook post without its trigger word, replying in the post thread', () => {
    const inbound = parseMattermostRequest(mattermostOutgoing());
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'What is a monad?',
      from: 'h5iz5vlzj3ggzd4bdbrm7xnfho',
      fromName: 'ada',
      place: 'group',
      addressed: true,
      conversation: 'fukxanjgjbnp7ng383at53k1sy:h5iz5vlzj3ggzd4bdbrm7xnfho',
      dedupeKey: 'ga9nrwr3kfdmtf6ffk6xdhzrsy',
      replyTo: { channel_id: 'fukxanjgjbnp7ng383at53k1sy', post_id: 'ga9nrwr3kfdmtf6ffk6xdhzrsy' },
    });
    // Nothing for Mattermost to post now: the reply follows through the API.
    expect(inbound.ack('job-1', false)).toEqual({ status: 200, body: {} });
  });

  it('queues a slash command, deduplicated by its trigger_id, in the thread it ran in', () => {
    const inbound = parseMattermostRequest(mattermostSlashCommand({ root_id: 'rootpost0000000000000000000' }));
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({
      text: 'What is a monad?',
      dedupeKey: mattermostSlashCommand().trigger_id,
      replyTo: { channel_id: 'fukxanjgjbnp7ng383at53k1sy', root_id: 'rootpost0000000000000000000' },
    });
  });

  it('keeps an outgoing webhook post’s file_ids as references, even without words', () => {
    const ids = ['a'.repeat(26), 'b'.repeat(26)];
    const inbound = parseMattermostRequest(mattermostOutgoing({ text: '#ask', file_ids: `${ids[0]},${ids[1]},not-an-id` }));
    expect(inbound).toMatchObject({
      kind: 'message',
      message: {
        text: '',
        media: [
          { kind: 'file', ref: ids[0] },
          { kind: 'file', ref: ids[1] },
        ],
      },
    });
  });

  it("ignores the bot's own posts and empty questions", () => {
    const ignored = { kind: 'answer', answer: { status: 200, body: { ok: true } } };
    expect(parseMattermostRequest(mattermostOutgoing({ user_id: 'botuser' }), { botUserId: 'botuser' })).toEqual(ignored);
    expect(parseMattermostRequest(mattermostOutgoing({ text: '#ask  ' }))).toEqual(ignored);
    expect(parseMattermostRequest(mattermostSlashCommand({ text: '' }))).toEqual(ignored);
  });

  it('answers 400 naming the field when the channel or user is missing', () => {
    const { channel_id: _, ...noChannel } = mattermostOutgoing();
    expect(appErrorFrom(() => parseMattermostRequest(noChannel)).param).toBe('channel_id');
    expect(appErrorFrom(() => parseMattermostRequest({ ...mattermostSlashCommand(), user_id: 5 })).param).toBe('user_id');
  });
});

describe('readMattermostBody and verifyMattermostToken', () => {
  it('reads a form as its fields and JSON as itself', () => {
    expect(readMattermostBody(jsonRequest(formBody({ token: 'a', text: 'x y&z' }), FORM))).toEqual({ token: 'a', text: 'x y&z' });
    expect(readMattermostBody(jsonRequest({ token: 'a' }))).toEqual({ token: 'a' });
    expect(appErrorFrom(() => readMattermostBody(jsonRequest('{"token":', {}))).status).toBe(400);
  });

  it('accepts either configured token and answers 401 invalid_token for any other or none', () => {
    expect(() => verifyMattermostToken({ token: 'command-token' }, ['webhook-token', 'command-token'])).not.toThrow();
    for (const fields of [{}, { token: '' }, { token: 'webhook-tokenx' }, { token: 5 }, 'token']) {
      const error = appErrorFrom(() => verifyMattermostToken(fields, ['webhook-token', 'command-token']));
      expect(error.status).toBe(401);
      expect(error.code).toBe('invalid_token');
    }
  });
});
