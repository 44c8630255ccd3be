import {
  eventually,
  type FakeSlack,
  type FakeTelegram,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeSlack,
  startFakeTelegram,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

/**
 * Whole replies (`stream: false`): the model's Markdown reaches the chat formatted for the
 * platform, as streamed replies do, through the platform's own fake.
 */
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_0123';
const SLACK_SECRET = 'slack-signing-secret-0123';
const SLACK_TOKEN = 'xoxb-whole-bot-token-0123';
const TG_LIMITS = { chat: { count: 1, perMs: 100 }, group: { count: 20, perMs: 1000 } };
const SLACK_LIMIT = { count: 1, perMs: 100 };
const MAPPED_TOKEN = 'mapped-hook-token-0123';
const ANSWER = [
  '**Bold move**: read [the docs](https://example.com/docs?a=1&b=2) first.',
  '',
  '```ts',
  'const ok = a < b && c > d;',
  '```',
].join('\n');

let telegram: FakeTelegram | undefined;
let slack: FakeSlack | undefined;
let harness: LiveHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await telegram?.close();
  await slack?.close();
  harness = telegram = slack = undefined;
});

async function start(fake: { refuseHtml?: boolean } = {}) {
  telegram = await startFakeTelegram({ botToken: TG_TOKEN, limits: TG_LIMITS, ...fake });
  slack = await startFakeSlack({ botToken: SLACK_TOKEN, limit: SLACK_LIMIT });
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
      team: {
        type: 'slack',
        signingSecret: SLACK_SECRET,
        botToken: SLACK_TOKEN,
        apiUrl: slack.apiUrl,
        stream: false,
        sendLimits: { channel: SLACK_LIMIT },
      },
      // Any webhook whose reply goes out through the Telegram hook: a delivery that never streams.
      alerts: {
        type: 'mapped',
        verify: { scheme: 'token', token: MAPPED_TOKEN },
        template: 'Explain alert {{id}}',
        deliver: { hook: 'tg', chat: -100_703 },
      },
    },
  });
  harness.startWorker();
  return { telegram, slack, harness };
}

let seq = 0;
async function sendTelegram(text: string, chatId: number) {
  seq++;
  const body = telegramUpdate({ text, message_id: seq, chat: { id: chatId, type: 'supergroup' } }, { update_id: 800_000 + seq });
  const res = await harness!.post('tg', JSON.stringify(body), { [TELEGRAM_SECRET_HEADER]: TG_SECRET });
  expect(res.status).toBe(200);
}

async function sendSlack(text: string) {
  seq++;
  const ts = `1736960000.${String(seq).padStart(6, '0')}`;
  const raw = JSON.stringify(slackMessageEvent({ text, ts, channel: 'C0WHOLE' }, { event_id: `EvWhole${seq}` }));
  const res = await harness!.post('team', raw, slackSignedHeaders(SLACK_SECRET, raw, Date.now()));
  expect(res.status).toBe(200);
  return ts;
}

describe('whole replies (stream: false)', () => {
  it('reach a Telegram chat as HTML: bold, a link and a code block, not literal Markdown', async () => {
    const { telegram, harness } = await start();
    harness.script('format it', { text: ANSWER });
    await sendTelegram('format it', -100_700);

    const [message] = await eventually(() => {
      const shown = telegram.chat(-100_700);
      expect(shown).toHaveLength(1);
      return shown;
    }, 400);
    expect(message!.parse_mode).toBe('HTML');
    expect(message!.sent).toContain('<b>Bold move</b>');
    expect(message!.sent).toContain('<a href="https://example.com/docs?a=1&amp;b=2">the docs</a>');
    expect(message!.sent).toContain('<pre><code class="language-ts">const ok = a &lt; b &amp;&amp; c &gt; d;</code></pre>');
    // What the user reads: no Markdown markers, the code as written.
    expect(message!.text).toBe('Bold move: read the docs first.\n\nconst ok = a < b && c > d;');
  });

  it('reach a Telegram chat as plain text when Telegram cannot parse the entities', async () => {
    const { telegram, harness } = await start({ refuseHtml: true });
    harness.script('plain please', { text: ANSWER });
    await sendTelegram('plain please', -100_701);

    await eventually(() => expect(telegram.chat(-100_701).map((m) => m.text)).toEqual([ANSWER]), 400);
    expect(telegram.chat(-100_701)[0]!.parse_mode).toBeUndefined();
    const sends = telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.body.chat_id) === -100_701);
    expect(sends.map((c) => [c.status, c.body.parse_mode])).toEqual([
      [400, 'HTML'],
      [200, undefined],
    ]);
  });

  it('reach a Telegram chat as HTML when a mapped hook delivers through a Telegram hook', async () => {
    const { telegram, harness } = await start();
    harness.script('Explain alert 7', { text: ANSWER });
    const res = await harness.post('alerts', JSON.stringify({ id: 7 }), { authorization: `Bearer ${MAPPED_TOKEN}` });
    expect(res.status).toBe(202);

    const [message] = await eventually(() => {
      const shown = telegram.chat(-100_703);
      expect(shown).toHaveLength(1);
      return shown;
    }, 400);
    expect(message!.parse_mode).toBe('HTML');
    expect(message!.text).toBe('Bold move: read the docs first.\n\nconst ok = a < b && c > d;');
  });

  it('reach a Slack thread in mrkdwn', async () => {
    const { slack, harness } = await start();
    harness.script('format it', { text: ANSWER });
    const thread = await sendSlack('format it');

    const [message] = await eventually(() => {
      const shown = slack.thread('C0WHOLE', thread);
      expect(shown).toHaveLength(1);
      return shown;
    }, 400);
    expect(message!.text).toBe(
      [
        '*Bold move*: read <https://example.com/docs?a=1&amp;b=2|the docs> first.',
        '',
        '```',
        'const ok = a &lt; b &amp;&amp; c &gt; d;',
        '```',
      ].join('\n'),
    );
  });

  it('cut past Telegram’s 4096 characters keep a code block whole in each message', async () => {
    const code = Array.from({ length: 300 }, (_, i) => `line(${i}); // ${'x'.repeat(10)}`).join('\n');
    const long = `Here:\n\n\`\`\`js\n${code}\n\`\`\`\n\nThat is **all**.`;
    const { telegram, harness } = await start();
    harness.script('long code', { text: long, chunkChars: 2000 });
    await sendTelegram('long code', -100_702);

    const shown = await eventually(() => {
      const messages = telegram.chat(-100_702);
      expect(messages.length).toBeGreaterThan(1);
      expect(messages.at(-1)!.text).toMatch(/That is all\.$/);
      return messages;
    }, 400);
    for (const message of shown) {
      expect(message.parse_mode).toBe('HTML');
      expect(message.text.length).toBeLessThanOrEqual(4096);
    }
    // Every piece that holds code shows it as code: the fence was closed and reopened at the cut.
    const withCode = shown.filter((m) => m.text.includes('line('));
    expect(withCode.length).toBeGreaterThan(1);
    for (const message of withCode) expect(message.sent).toMatch(/^<pre><code class="language-js">line\(/);
    expect(shown.map((m) => m.text).join('\n')).toContain('line(299);');
  });
});
