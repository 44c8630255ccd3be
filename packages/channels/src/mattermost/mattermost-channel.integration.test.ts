import type { InboundMessage } from '@switchboard/protocol';
import { type FakeMattermost, sendJson, startFakeMattermost } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { mattermost as mattermostChannel } from './mattermost-channel.js';

const BOT_TOKEN = 'mm-bot-access-token-0123';
const META = { jobId: 'job_abc123', hook: 'mm', model: 'local/echo', created: 1_736_942_400 };
const CHANNEL = 'fukxanjgjbnp7ng383at53k1sy';
const message = (replyTo: InboundMessage['replyTo']): InboundMessage => ({
  action: 'chat',
  text: 'What is a monad?',
  from: 'h5iz5vlzj3ggzd4bdbrm7xnfho',
  conversation: `${CHANNEL}:h5iz5vlzj3ggzd4bdbrm7xnfho`,
  dedupeKey: 'p1',
  replyTo,
});

let mattermost: FakeMattermost | undefined;
let hook: Hook | undefined;

afterEach(async () => {
  await hook?.close();
  await mattermost?.close();
  hook = mattermost = undefined;
});

async function start(botToken = BOT_TOKEN) {
  mattermost = await startFakeMattermost({ botToken: BOT_TOKEN });
  hook = createHook('mm', {
    type: 'mattermost' as const,
    ...mattermostChannel.config.parse({ token: 'mm-outgoing-token-0123', serverUrl: mattermost.url, botToken }),
  });
  return { mattermost, hook };
}

describe('Mattermost channel', () => {
  it('posts the reply with the bot token in the thread of the post that asked', async () => {
    const { mattermost, hook } = await start();
    mattermost.userPosted({ id: 'userpost1', channel_id: CHANNEL });
    await hook.deliver(message({ channel_id: CHANNEL, post_id: 'userpost1' }), 'A monad is…', 0, META);
    const post = mattermost.server.requests.find((r) => r.method === 'POST');
    expect(post?.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(post?.json).toEqual({
      channel_id: CHANNEL,
      message: 'A monad is…',
      root_id: 'userpost1',
      pending_post_id: expect.stringMatching(/^[\w-]{25}$/),
    });
  });

  it('posts a piece once however often a retry sends it: its pending_post_id is the same on every run', async () => {
    const { mattermost, hook } = await start();
    mattermost.userPosted({ id: 'userpost3', channel_id: CHANNEL });
    const asked = message({ channel_id: CHANNEL, post_id: 'userpost3' });
    await hook.deliver(asked, 'first piece', 0, META);
    await hook.deliver(asked, 'first piece', 0, META);
    await hook.deliver(asked, 'second piece', 1, META);
    expect(mattermost.botPosts().map((p) => p.message)).toEqual(['first piece', 'second piece']);
    const keys = mattermost.server.requests
      .filter((r) => r.method === 'POST')
      .map((r) => (r.json as { pending_post_id: string }).pending_post_id);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('answers a post that is itself a reply under its thread root, which the server requires', async () => {
    const { mattermost, hook } = await start();
    mattermost.userPosted({ id: 'root1', channel_id: CHANNEL });
    mattermost.userPosted({ id: 'reply1', channel_id: CHANNEL, root_id: 'root1' });
    await hook.deliver(message({ channel_id: CHANNEL, post_id: 'reply1' }), 'In the thread', 0, META);
    expect(mattermost.botPosts()).toMatchObject([{ root_id: 'root1', message: 'In the thread' }]);
  });

  it('posts a slash command reply in its channel, or its thread when it ran in one', async () => {
    const { mattermost, hook } = await start();
    mattermost.userPosted({ id: 'root2', channel_id: CHANNEL });
    await hook.deliver(message({ channel_id: CHANNEL }), 'top level', 0, META);
    await hook.deliver(message({ channel_id: CHANNEL, root_id: 'root2' }), 'threaded', 0, { ...META, jobId: 'job_def456' });
    expect(mattermost.botPosts()).toMatchObject([
      { root_id: '', message: 'top level' },
      { root_id: 'root2', message: 'threaded' },
    ]);
  });

  it('splits at 16,383 characters', async () => {
    const { hook } = await start();
    // Markdown-aware: room is kept in each piece to close and reopen a code block cut in two.
    expect(hook.split('a'.repeat(20_000)).map((piece) => piece.length)).toEqual([16_343, 3657]);
  });

  it('flags a refused bot token without naming it, and retries 429 and 5xx', async () => {
    const { mattermost, hook } = await start('mm-revoked-token-0123');
    const refused = await deliveryErrorFrom(hook.deliver(message({ channel_id: CHANNEL }), 'x', 0, META));
    expect(refused.retryable).toBe(false);
    expect(refused.options.credentialsRefused).toBe(true);
    expect(refused.message).not.toContain('mm-revoked-token-0123');
    expect(await hook.checkCredentials?.()).toMatchObject({ connected: false });
    mattermost.server.handle((_req, res) => sendJson(res, 429, { message: 'Too many requests' }, { 'retry-after': '1' }));
    const limited = await deliveryErrorFrom(hook.deliver(message({ channel_id: CHANNEL }), 'x', 0, META));
    expect(limited.retryable).toBe(true);
    expect(limited.retryAfterMs).toBe(1000);
  });

  it('checks the credentials with GET /api/v4/users/me', async () => {
    const { hook } = await start();
    expect(await hook.checkCredentials?.()).toEqual({ connected: true });
  });
});
