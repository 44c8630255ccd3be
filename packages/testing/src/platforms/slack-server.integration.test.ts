import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from './slack-server.js';

const TOKEN = 'xoxb-0001-0002-fake';
let slack: FakeSlack | undefined;

afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

/** A Web API answer: every one has `ok`. */
const answer = (res: Response) => res.json() as Promise<{ ok: boolean } & Record<string, unknown>>;

const post = (path: string, init: RequestInit) => fetch(`${slack!.apiUrl}/${path}`, { method: 'POST', ...init });

describe('the fake Slack Web API', () => {
  it("answers Slack's own client (a form body, the Bearer token) with the posted message", async () => {
    slack = await startFakeSlack({ botToken: TOKEN });
    const client = new WebClient(TOKEN, { slackApiUrl: `${slack.apiUrl}/`, retryConfig: { retries: 0 } });
    const posted = await client.chat.postMessage({ channel: 'C0123', thread_ts: '1736942400.000100', text: 'Hi *there*' });
    expect(slack.calls[0]?.encoding).toBe('form');
    expect(posted).toMatchObject({ ok: true, channel: 'C0123', ts: expect.any(String) });
    expect(posted.message).toMatchObject({ type: 'message', text: 'Hi *there*', bot_id: 'B0123', ts: posted.ts });
    expect(slack.thread('C0123', '1736942400.000100').map((m) => m.text)).toEqual(['Hi *there*']);
  });

  it('takes the token as a form field, and a JSON body with the Bearer header', async () => {
    slack = await startFakeSlack({ botToken: TOKEN, limit: { count: 10, perMs: 1000 } });
    const form = await post('chat.postMessage', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, channel: 'C0123', text: 'form' }).toString(),
    });
    const json = await post('chat.postMessage', {
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ channel: 'C0123', text: 'json' }),
    });
    expect([form.status, json.status]).toEqual([200, 200]);
    expect([(await answer(form)).ok, (await answer(json)).ok]).toEqual([true, true]);
    expect(slack.calls.map((c) => c.encoding)).toEqual(['form', 'json']);
    expect(slack.calls.map((c) => c.missingCharset)).toEqual([false, false]);
  });

  it('refuses a token in a JSON body (not_authed) and a wrong one (invalid_auth), both with HTTP 200', async () => {
    slack = await startFakeSlack({ botToken: TOKEN });
    const inBody = await post('chat.postMessage', {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ token: TOKEN, channel: 'C0123', text: 'x' }),
    });
    const wrong = await post('auth.test', { headers: { authorization: 'Bearer xoxb-wrong' } });
    expect(inBody.status).toBe(200);
    expect(await inBody.json()).toEqual({ ok: false, error: 'not_authed' });
    expect(await wrong.json()).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('answers chat.startStream with ok, channel and ts (warning of a missing charset), and a second message in the second with 429 + Retry-After', async () => {
    slack = await startFakeSlack({ botToken: TOKEN });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
    const started = await post('chat.startStream', {
      headers,
      body: JSON.stringify({ channel: 'D0123', thread_ts: '1.2', markdown_text: '**hi**' }),
    });
    expect(Object.keys(await answer(started)).sort()).toEqual(['channel', 'ok', 'response_metadata', 'ts', 'warning']);
    expect(slack.calls[0]?.missingCharset).toBe(true);
    const limited = await post('chat.postMessage', { headers, body: JSON.stringify({ channel: 'D0123', text: 'again' }) });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({ ok: false, error: 'ratelimited' });
  });
});
