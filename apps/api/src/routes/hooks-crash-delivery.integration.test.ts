import { once } from 'node:events';
import {
  discordCommand,
  discordKeys,
  discordSignedHeaders,
  eventually,
  type FakeDiscord,
  type FakeMattermost,
  type FakeTelegram,
  formBody,
  mattermostSlashCommand,
  startFakeDiscord,
  startFakeMattermost,
  startFakeTelegram,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

/**
 * A worker SIGKILLed right after the platform accepted a piece of a reply, before it could record
 * it: the next worker sends the piece again, and what the user sees depends on the platform's own
 * dedupe. The fake kills the worker process the moment its answer is on the wire.
 */
const MM_TOKEN = 'mm-command-token-0123';
const MM_BOT_TOKEN = 'mm-bot-access-token-0123';
const DISCORD_APP = '1100000000000000001';
const DISCORD_BOT_TOKEN = 'discord-bot-token-0123456789';
const DISCORD_CHANNEL = '900000000000000088';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_0123';
const TG_LIMITS = { chat: { count: 1, perMs: 100 }, group: { count: 20, perMs: 1000 } };
const keys = discordKeys();

let harness: LiveHarness | undefined;
let fake: { close(): Promise<void> } | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  harness = fake = undefined;
});

/** Resolves once the queue holds one completed job and nothing left to do. */
async function allDone(h: LiveHarness) {
  await eventually(
    async () =>
      expect(await h.hub.queue.getJobCounts('completed', 'active', 'waiting', 'delayed', 'failed')).toMatchObject({
        completed: 1,
        active: 0,
        waiting: 0,
        delayed: 0,
        failed: 0,
      }),
    400,
    50,
  );
}

describe('a worker killed right after the platform accepted a piece', () => {
  it('Mattermost: the retry posts the piece with the same pending_post_id, and the channel shows the reply once', async () => {
    const mattermost: FakeMattermost = await startFakeMattermost({ botToken: MM_BOT_TOKEN });
    fake = mattermost;
    harness = await startLiveHarness({
      hooks: { mm: { type: 'mattermost', token: MM_TOKEN, serverUrl: mattermost.url, botToken: MM_BOT_TOKEN } },
    });
    const child = await harness.spawnWorker();
    mattermost.server.onAnswered((req, status) => {
      if (req.method === 'POST' && req.url === '/api/v4/posts' && status === 201) child.kill('SIGKILL');
    });
    const channelId = 'crashchan000000000000000001';
    const body = formBody(mattermostSlashCommand({ channel_id: channelId, text: 'say it once' }));
    const res = await harness.post('mm', body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
    await once(child, 'exit');

    harness.startWorker(); // takes the job once the dead worker's lock runs out
    await allDone(harness);
    expect(mattermost.botPosts().map((p) => p.message)).toEqual(['reply to: say it once']);
    const creates = mattermost.server.requests.filter((r) => r.method === 'POST' && r.url === '/api/v4/posts');
    expect(creates).toHaveLength(2);
    expect(creates.map((r) => (r.json as { pending_post_id?: string }).pending_post_id)).toEqual([
      expect.any(String),
      (creates[0]!.json as { pending_post_id: string }).pending_post_id,
    ]);
  });

  it('Discord (an expired interaction, replies as channel messages): the retry’s post returns the message by its nonce, and the channel shows one', async () => {
    const discord: FakeDiscord = await startFakeDiscord({ applicationId: DISCORD_APP, botToken: DISCORD_BOT_TOKEN });
    fake = discord;
    harness = await startLiveHarness({
      hooks: {
        dc: {
          type: 'discord',
          publicKey: keys.publicKeyHex,
          applicationId: DISCORD_APP,
          apiUrl: discord.apiUrl,
          botToken: DISCORD_BOT_TOKEN,
          streamIntervalMs: 100,
        },
      },
    });
    const answer = 'A **monad** is a `flatMap` with laws: left identity, right identity, associativity.';
    harness.script('once please', { text: answer, chunkDelayMs: 30, chunkChars: 8 });
    const child = await harness.spawnWorker();
    const channelPosts = () =>
      discord.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${DISCORD_CHANNEL}/messages`);
    discord.server.onAnswered((req, status) => {
      if (req.method === 'POST' && req.url.includes(`/channels/${DISCORD_CHANNEL}/messages`) && status === 200)
        child.kill('SIGKILL');
    });
    const token = 'interaction-token-crash-1';
    discord.interaction(token, { expired: true });
    const raw = JSON.stringify(
      discordCommand({
        id: '1329481234567800001',
        token,
        channel_id: DISCORD_CHANNEL,
        channel: { id: DISCORD_CHANNEL, type: 0 },
        member: { user: { id: '800000000000000001', username: 'ada' }, roles: [] },
        data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: 'once please' }] },
      }),
    );
    const signed = discordSignedHeaders(keys.privateKey, Buffer.from(raw), String(Math.floor(Date.now() / 1000)));
    expect((await harness.post('dc', raw, signed)).status).toBe(200);
    await once(child, 'exit');

    harness.startWorker();
    await allDone(harness);
    expect(channelPosts()).toHaveLength(2);
    expect(discord.channel(DISCORD_CHANNEL).map((p) => p.content)).toEqual([answer]);
  });

  it('Telegram (no dedupe): pieces recorded before the next is posted are not sent again; only the piece in flight may repeat', async () => {
    const telegram: FakeTelegram = await startFakeTelegram({ botToken: TG_TOKEN, limits: TG_LIMITS });
    fake = telegram;
    harness = await startLiveHarness({
      hooks: {
        tg: {
          type: 'telegram',
          botToken: TG_TOKEN,
          secretToken: TG_SECRET,
          apiUrl: telegram.url,
          stream: false,
          sendLimits: TG_LIMITS,
        },
      },
    });
    const paragraphs = [1, 2, 3].map((n) => `Part ${n}. ${'lorem ipsum dolor '.repeat(160).trim()}`);
    harness.script('three parts', { text: paragraphs.join('\n\n'), chunkChars: 4000 });
    const child = await harness.spawnWorker();
    let accepted = 0;
    telegram.server.onAnswered((req, status) => {
      if (req.url.endsWith('/sendMessage') && status === 200 && ++accepted === 2) child.kill('SIGKILL');
    });
    const update = telegramUpdate({ text: 'three parts', message_id: 1, chat: { id: -100_900, type: 'supergroup' } });
    expect((await harness.post('tg', JSON.stringify(update), { [TELEGRAM_SECRET_HEADER]: TG_SECRET })).status).toBe(200);
    await once(child, 'exit');

    harness.startWorker();
    await allDone(harness);
    const shown = telegram.chat(-100_900).map((m) => m.text);
    // Part 1 was recorded before part 2 was posted: never again. Part 2 was accepted as the
    // worker died, before it heard: Telegram has no idempotency key, so it shows twice (the
    // window the README's crash table names).
    expect(shown.filter((t) => t === paragraphs[0])).toHaveLength(1);
    expect(shown.filter((t) => t === paragraphs[2])).toHaveLength(1);
    expect(shown.filter((t) => t === paragraphs[1])).toHaveLength(2);
    expect(shown.at(0)).toBe(paragraphs[0]);
    expect(shown.at(-1)).toBe(paragraphs[2]);
  });
});
