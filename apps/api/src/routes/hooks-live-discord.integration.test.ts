import { once } from 'node:events';
import {
  discordCommand,
  discordKeys,
  discordSignedHeaders,
  eventually,
  type FakeDiscord,
  startFakeDiscord,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { heldStream, type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

const APPLICATION_ID = '1100000000000000001';
const BOT_TOKEN = 'discord-bot-token-0123456789';
const CHANNEL = '900000000000000077';
/** Five per five seconds per interaction, scaled down. */
const LIMIT = { count: 5, perMs: 500 };
const keys = discordKeys();
const ANSWER = 'A **monad** is a `flatMap` with laws:\n\n1. left identity\n2. right identity\n3. associativity';

let discord: FakeDiscord | undefined;
let harness: LiveHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await discord?.close();
  harness = discord = undefined;
});

async function start() {
  discord = await startFakeDiscord({ applicationId: APPLICATION_ID, botToken: BOT_TOKEN, limit: LIMIT });
  harness = await startLiveHarness({
    hooks: {
      dc: {
        type: 'discord',
        publicKey: keys.publicKeyHex,
        applicationId: APPLICATION_ID,
        apiUrl: discord.apiUrl,
        botToken: BOT_TOKEN,
        streamIntervalMs: 150,
        sendLimits: { interaction: LIMIT },
      },
    },
  });
  return { discord, harness };
}

let seq = 0;
/** A signed slash command; Discord knows its interaction token from then on (expired, if asked). */
async function send(prompt: string, options: { expired?: boolean } = {}) {
  seq++;
  const token = `interaction-token-${seq}-${Date.now()}`;
  discord!.interaction(token, options);
  const body = discordCommand({
    id: `13294812345678${String(seq).padStart(5, '0')}`,
    token,
    channel_id: CHANNEL,
    channel: { id: CHANNEL, type: 0 },
    member: { user: { id: `80000000000000${seq}`, username: 'ada' }, roles: [] },
    data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: prompt }] },
  });
  const raw = JSON.stringify(body);
  const res = await harness!.post(
    'dc',
    raw,
    discordSignedHeaders(keys.privateKey, Buffer.from(raw), String(Math.floor(Date.now() / 1000))),
  );
  expect(await res.json()).toEqual({ type: 5 });
  return token;
}

const callsOf = (fake: FakeDiscord, token: string) => fake.calls.filter((c) => c.path.includes(token));

describe('Discord live replies', () => {
  it('edits the deferred response as the text grows, within the interaction’s rate limit, ending with the whole reply', async () => {
    const { discord, harness } = await start();
    harness.script('monads?', { text: ANSWER, chunkDelayMs: 40, chunkChars: 6 });
    harness.startWorker();
    const token = await send('monads?');

    await eventually(() => expect(discord.responses(token)).toEqual([{ id: '@original', content: ANSWER }]), 400);
    const calls = callsOf(discord, token);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((c) => c.method === 'PATCH' && c.path.endsWith('/messages/@original'))).toBe(true);
    expect(discord.refused).toBe(0);
  });

  it('continues a reply past 2,000 characters in follow-up messages', async () => {
    const long = Array.from({ length: 5 }, (_, i) => `Section ${i + 1}: ${'words and more words '.repeat(30).trim()}`).join(
      '\n\n',
    );
    const { discord, harness } = await start();
    harness.script('long one', { text: long, chunkDelayMs: 5, chunkChars: 300 });
    harness.startWorker();
    const token = await send('long one');

    const posts = await eventually(() => {
      const shown = discord.responses(token);
      expect(shown.map((p) => p.content).join('\n\n')).toBe(long);
      return shown;
    }, 400);
    expect(posts.length).toBeGreaterThan(1);
    for (const post of posts) expect(post.content.length).toBeLessThanOrEqual(2000);
    expect(discord.refused).toBe(0);
  });

  it('posts the reply as a channel message with the bot token once the interaction token has expired', async () => {
    const { discord, harness } = await start();
    harness.script('too late', { text: ANSWER, chunkDelayMs: 20, chunkChars: 20 });
    harness.startWorker();
    await send('too late', { expired: true });

    await eventually(() => expect(discord.channel(CHANNEL).map((p) => p.content)).toEqual([ANSWER]), 400);
  });

  it('after a worker is SIGKILLed mid-stream, the next run edits the same response to the whole reply, with no extra message', async () => {
    const { discord, harness } = await start();
    const { hold, release } = heldStream();
    harness.script('survive this', { text: ANSWER, chunkDelayMs: 30, chunkChars: 6, holdAfter: 8, hold });
    const child = await harness.spawnWorker();
    const token = await send('survive this');
    await eventually(() => expect(discord.responses(token)[0]!.content).not.toBe(''), 400);
    child.kill('SIGKILL');
    await once(child, 'exit');
    release();

    harness.startWorker();
    await eventually(() => expect(discord.responses(token)).toEqual([{ id: '@original', content: ANSWER }]), 400);
    expect(callsOf(discord, token).filter((c) => c.method === 'POST')).toEqual([]);
    expect(discord.channel(CHANNEL)).toEqual([]);
  });
});
