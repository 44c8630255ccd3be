import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from './discord-server.js';

const APP = '1100000000000000001';
const TOKEN = 'interaction-token-0001';
let discord: FakeDiscord | undefined;

afterEach(async () => {
  await discord?.close();
  discord = undefined;
});

const send = (method: string, path: string, body: unknown, contentType = 'application/json') =>
  fetch(`${discord!.apiUrl}/webhooks/${APP}/${TOKEN}${path}`, {
    method,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const json = (res: Response) => res.json() as Promise<Record<string, unknown>>;

describe('the fake Discord API', () => {
  it('answers an edit of the original response with the whole message object, under its own id', async () => {
    discord = await startFakeDiscord({ applicationId: APP });
    discord.interaction(TOKEN);
    const edited = await json(await send('PATCH', '/messages/@original', { content: 'A monad is…' }));
    expect(edited).toMatchObject({
      content: 'A monad is…',
      channel_id: expect.any(String),
      author: { id: APP, bot: true },
      timestamp: expect.any(String),
      edited_timestamp: expect.any(String),
      tts: false,
      mentions: [],
      attachments: [],
      embeds: [],
    });
    expect(edited.id).toMatch(/^\d{17,20}$/);
    // The message is reachable by that id too.
    expect((await send('PATCH', `/messages/${edited.id}`, { content: 'A monad is a monoid…' })).status).toBe(200);
    expect(discord.responses(TOKEN)).toEqual([{ id: '@original', content: 'A monad is a monoid…' }]);
  });

  it('refuses a message without content (50006), and reads a body that is not JSON as none', async () => {
    discord = await startFakeDiscord({ applicationId: APP });
    discord.interaction(TOKEN);
    const empty = await send('POST', '', { content: '' });
    const form = await send('POST', '', 'content=hi', 'application/x-www-form-urlencoded');
    expect([empty.status, form.status]).toEqual([400, 400]);
    expect(await json(empty)).toEqual({ message: 'Cannot send an empty message', code: 50006 });
  });

  it('reports the bucket in X-RateLimit headers and refuses the sixth call in 5 s with 429 and retry_after', async () => {
    discord = await startFakeDiscord({ applicationId: APP });
    discord.interaction(TOKEN);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await send('POST', '', { content: `piece ${i}` }));
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('5');
    expect(answers[4]!.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = answers[5]!;
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(await json(limited)).toMatchObject({
      message: 'You are being rate limited.',
      retry_after: expect.any(Number),
      global: false,
    });
  });
});
