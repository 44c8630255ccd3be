import { formBody, type MattermostApi, mattermostApi, mattermostOutgoing, mattermostSlashCommand } from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const WEBHOOK_TOKEN = 'mm-outgoing-token-0123';
const COMMAND_TOKEN = 'mm-command-token-0123';
const BOT_TOKEN = 'mm-bot-access-token-0123';
const BOT_USER = 'bot0user0id0000000000000000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let api: MattermostApi;
let harness: HookHarness;

beforeAll(async () => {
  api = mattermostApi({ botToken: BOT_TOKEN });
  harness = await startHookHarness({
    platform: api.handler,
    hooks: (serverUrl) => {
      const hook = {
        type: 'mattermost',
        token: WEBHOOK_TOKEN,
        commandToken: COMMAND_TOKEN,
        serverUrl,
        botToken: BOT_TOKEN,
        botUserId: BOT_USER,
      };
      return { mm: hook, quiet: hook };
    },
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** A channel of its own per test, so conversations never meet. */
const channel = () => `chan${String(++seq).padStart(22, '0')}`;
const postsIn = (channelId: string) => api.botPosts().filter((p) => p.channel_id === channelId);

describe('Mattermost hooks', () => {
  it('answers an outgoing webhook (JSON) in the thread of the post, without the trigger word', async () => {
    const channelId = channel();
    api.userPosted({ id: `post${seq}`, channel_id: channelId });
    const res = await harness.post('mm', JSON.stringify(mattermostOutgoing({ channel_id: channelId, post_id: `post${seq}` })));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    await eventually(
      () =>
        expect(postsIn(channelId)).toMatchObject([{ root_id: `post${seq}`, message: 'reply to: What is a monad? (history: 0)' }]),
      200,
    );
  });

  it('answers a slash command (a form) in its channel, and a repeated one once', async () => {
    const channelId = channel();
    const body = formBody(mattermostSlashCommand({ channel_id: channelId, text: 'explain functors' }));
    expect((await harness.post('mm', body, FORM)).status).toBe(200);
    expect((await harness.post('mm', body, FORM)).status).toBe(200);
    await eventually(
      () => expect(postsIn(channelId)).toMatchObject([{ root_id: '', message: 'reply to: explain functors (history: 0)' }]),
      200,
    );
    expect(harness.modelCalls('explain functors')).toBe(1);
  });

  it('remembers the conversation of a user in a channel', async () => {
    const channelId = channel();
    const ask = (text: string, trigger: string) =>
      harness.post('mm', formBody(mattermostSlashCommand({ channel_id: channelId, text, trigger_id: trigger })), FORM);
    await ask('first question', `t${seq}a`);
    await ask('second question', `t${seq}b`);
    await eventually(
      () =>
        expect(postsIn(channelId).map((p) => p.message)).toEqual([
          'reply to: first question (history: 0)',
          'reply to: second question (history: 2)',
        ]),
      200,
    );
  });

  it("answers 401 for a wrong or missing token, 400 for garbage, 415 for another type, 200 for the bot's own post; queues none", async () => {
    const channelId = channel();
    for (const token of ['', 'mm-outgoing-token-0124', BOT_TOKEN]) {
      const res = await harness.post('quiet', formBody(mattermostSlashCommand({ channel_id: channelId, token })), FORM);
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    }
    expect((await harness.post('quiet', '{"token":', {})).status).toBe(400);
    const noChannel = await harness.post('quiet', formBody({ token: WEBHOOK_TOKEN, text: 'hi', user_id: 'u1' }), FORM);
    expect(noChannel.status).toBe(400);
    expect((await noChannel.json()).error.param).toBe('channel_id');
    expect((await harness.post('quiet', 'token=x', { 'content-type': 'text/plain' })).status).toBe(415);
    const own = await harness.post('quiet', JSON.stringify(mattermostOutgoing({ channel_id: channelId, user_id: BOT_USER })));
    expect(own.status).toBe(200);
    expect((await harness.channel('quiet')).messages_in).toBe(0);
  });
});
