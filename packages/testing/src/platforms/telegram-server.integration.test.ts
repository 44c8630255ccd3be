import { afterEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './telegram-server.js';

const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
let telegram: FakeTelegram | undefined;

afterEach(async () => {
  await telegram?.close();
  telegram = undefined;
});

/** A Bot API answer. */
const answer = (res: Response) => res.json() as Promise<{ ok: boolean; result: { from: unknown } } & Record<string, unknown>>;

const call = (method: string, init: RequestInit = {}, query = '') =>
  fetch(`${telegram!.url}/bot${TOKEN}/${method}${query}`, { method: 'POST', ...init });

describe('the fake Telegram Bot API', () => {
  it('takes parameters as JSON, as a form and in the query string, and answers the whole Message', async () => {
    telegram = await startFakeTelegram({
      botToken: TOKEN,
      limits: { chat: { count: 10, perMs: 1000 }, group: { count: 10, perMs: 1000 } },
    });
    telegram.userWrote(-100_5, 42);
    const json = await call('sendMessage', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: -100_5, text: 'json', reply_parameters: { message_id: 42 } }),
    });
    const form = await call('sendMessage', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ chat_id: '-1005', text: 'form', reply_parameters: '{"message_id":42}' }).toString(),
    });
    const query = await call('SENDMESSAGE', {}, `?chat_id=-1005&text=query`);
    expect(telegram.calls.map((c) => [c.method, c.encoding])).toEqual([
      ['sendMessage', 'json'],
      ['sendMessage', 'form'],
      ['sendMessage', 'query'],
    ]);
    const sent = await answer(json);
    expect(sent).toMatchObject({
      ok: true,
      result: {
        message_id: expect.any(Number),
        date: expect.any(Number),
        text: 'json',
        chat: { id: -100_5, type: 'supergroup' },
      },
    });
    expect(sent.result.from).toMatchObject({ is_bot: true, first_name: 'Switchboard' });
    expect((await answer(form)).ok).toBe(true);
    expect((await answer(query)).ok).toBe(true);
    expect(telegram.chat(-100_5).map((m) => m.text)).toEqual(['json', 'form', 'query']);
  });

  it('puts a reply in the topic of the message it answers, and a message naming a topic in that topic', async () => {
    telegram = await startFakeTelegram({
      botToken: TOKEN,
      limits: { chat: { count: 10, perMs: 1000 }, group: { count: 10, perMs: 1000 } },
    });
    telegram.userWrote(-100_5, 42, 77);
    const headers = { 'content-type': 'application/json' };
    await call('sendMessage', {
      headers,
      body: JSON.stringify({ chat_id: -100_5, text: 'a', reply_parameters: { message_id: 42 } }),
    });
    await call('sendMessage', { headers, body: JSON.stringify({ chat_id: -100_5, text: 'b', message_thread_id: 77 }) });
    await call('sendMessage', { headers, body: JSON.stringify({ chat_id: -100_5, text: 'c' }) });
    expect(telegram.chat(-100_5).map((m) => [m.text, m.message_thread_id])).toEqual([
      ['a', 77],
      ['b', 77],
      ['c', undefined],
    ]);
  });

  it('refuses a second message in the second with 429 and parameters.retry_after, and a bad token with 401', async () => {
    telegram = await startFakeTelegram({ botToken: TOKEN });
    const headers = { 'content-type': 'application/json' };
    await call('sendMessage', { headers, body: JSON.stringify({ chat_id: 7, text: 'one' }) });
    const limited = await call('sendMessage', { headers, body: JSON.stringify({ chat_id: 7, text: 'two' }) });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ ok: false, error_code: 429, parameters: { retry_after: expect.any(Number) } });
    const refused = await fetch(`${telegram.url}/bot1:wrong/getMe`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
  });

  it('answers an HTML message with the text it shows and the entities Telegram made of the tags', async () => {
    telegram = await startFakeTelegram({ botToken: TOKEN });
    const html =
      '<b>Bold</b> and <a href="https://example.com/docs">the docs</a>\n<pre><code class="language-ts">let x = 1;</code></pre>';
    const sent = await call('sendMessage', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: 7, text: html, parse_mode: 'HTML' }),
    });
    expect((await answer(sent)).result).toMatchObject({
      text: 'Bold and the docs\nlet x = 1;',
      entities: [
        { type: 'bold', offset: 0, length: 4 },
        { type: 'text_link', offset: 9, length: 8, url: 'https://example.com/docs' },
        { type: 'pre', offset: 18, length: 10, language: 'ts' },
      ],
    });
  });
});
