import {
  answerText,
  anthropicImagesSeen,
  anthropicLastUserText,
  anthropicMessage,
  describeBytes,
  type FakeSlack,
  type FakeTelegram,
  imagesSeen,
  type LocalServer,
  lastUserWords,
  sendJson,
  slackMessageEvent,
  slackSignedHeaders,
  startAnthropicUpstream,
  startFakeSlack,
  startFakeTelegram,
  startLocalServer,
  startOpenAIUpstream,
  streamAnthropicMessage,
  TELEGRAM_SECRET_HEADER,
  TINY_PNG,
  telegramUpdate,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askHook } from '../test-support/ask-hook.js';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const TOKEN = 'hook-token-0123456789';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_0123';
const SLACK_TOKEN = 'xoxb-0000000000-1111111111-media';
const SLACK_SECRET = 'slack-signing-secret-media';
const SMALL_LIMIT = 1_000;

const PNG = TINY_PNG;
/** A PNG signature followed by enough bytes to pass the small hook's limit. */
const BIG_PNG = Buffer.concat([PNG, Buffer.alloc(5 * SMALL_LIMIT, 7)]);

let upstream: LocalServer;
let blind: LocalServer;
let claude: LocalServer;
let files: LocalServer;
let telegram: FakeTelegram;
let slack: FakeSlack;
let gateway: TestGateway;
let worker: TestWorker;
/** The endless file's connection was closed by the worker (it stopped reading at its limit). */
let endlessClosed = false;

/** A vision model whose reply shows what it got: the words, the images (type, size, hash), and the earlier turns. */
function visionModel(): Parameters<LocalServer['handle']>[0] {
  return (req, res) => {
    const body = req.json as { messages: { role: string; content: unknown }[] };
    const earlier = body.messages.slice(0, -1).map((m) => (typeof m.content === 'string' ? m.content : '[parts]'));
    answerText(req, res, `saw: ${lastUserWords(req)} | images: ${imagesSeen(req).join(', ')} | earlier: ${earlier.join(' / ')}`);
  };
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream(visionModel());
  // A model without vision, as OpenAI answers one sent an image part (gpt-3.5-turbo): a 400 in its
  // error shape (https://platform.openai.com/docs/guides/error-codes; the message and param as
  // OpenAI words them, quoted in vllm-project/vllm#11629). Text alone is answered.
  blind = await startOpenAIUpstream((req, res) => {
    const body = req.json as { messages: { role: string; content: unknown }[] };
    const earlier = body.messages.slice(0, -1).map((m) => (typeof m.content === 'string' ? m.content : '[parts]'));
    if (imagesSeen(req).length === 0)
      return answerText(req, res, `blind saw: ${lastUserWords(req)} | earlier: ${earlier.join(' / ')}`);
    sendJson(res, 400, {
      error: {
        message: 'Invalid content type. image_url is only supported by certain models.',
        type: 'invalid_request_error',
        param: 'messages.[0].content.[1].type',
        code: null,
      },
    });
  });
  // Claude, streamed or not as asked: its reply names the image blocks it got.
  claude = await startAnthropicUpstream((req, res) => {
    const body = req.json as { model: string; stream?: boolean };
    const text = `Claude saw: ${anthropicLastUserText(req)} | images: ${anthropicImagesSeen(req).join(', ')}`;
    const message = anthropicMessage(body.model, [{ type: 'text', text }]);
    if (body.stream) return streamAnthropicMessage(res, message);
    sendJson(res, 200, message);
  });
  files = await startLocalServer((req, res, raw) => {
    switch (req.url) {
      case '/receipt.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      case '/big.png':
        return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(BIG_PNG.length) }).end(BIG_PNG);
      case '/lying.png':
        // Says it is a PNG; is a page of HTML.
        return void res
          .writeHead(200, { 'content-type': 'image/png' })
          .end('<!DOCTYPE html><html><body>not an image</body></html>');
      case '/endless.png': {
        // No Content-Length, and no end: the worker must stop reading at its limit.
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(PNG);
        const chunk = Buffer.alloc(256, 1);
        const timer = setInterval(() => {
          if (res.destroyed) return clearInterval(timer);
          res.write(chunk);
        }, 2);
        raw.socket?.on('close', () => {
          endlessClosed = true;
          clearInterval(timer);
        });
        return;
      }
      default:
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
    }
  });
  telegram = await startFakeTelegram({ botToken: TG_TOKEN });
  slack = await startFakeSlack({ botToken: SLACK_TOKEN });
  const images = { images: true, allowPrivateUrls: true };
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'] },
        claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-test-123', models: ['claude-test'] },
        blind: { type: 'openai', baseUrl: `${blind.url}/v1`, models: ['gpt-3.5-turbo'] },
      },
      hooks: {
        support: { type: 'generic', token: TOKEN, stream: false, media: images },
        // Without allowPrivateUrls: the files server is on 127.0.0.1.
        strict: { type: 'generic', token: TOKEN, stream: false, media: { images: true } },
        small: { type: 'generic', token: TOKEN, stream: false, media: { ...images, maxBytes: SMALL_LIMIT } },
        plain: { type: 'generic', token: TOKEN, stream: false },
        // Images on, but the model cannot see them: whole replies, and streamed ones.
        blind: { type: 'generic', token: TOKEN, stream: false, model: 'blind/gpt-3.5-turbo', media: images },
        blindlive: { type: 'generic', token: TOKEN, model: 'blind/gpt-3.5-turbo', media: images },
        // The operator says so: images are refused without asking the model.
        novision: { type: 'generic', token: TOKEN, stream: false, media: { ...images, vision: false } },
        // Streamed (a generic hook's default), answered by Claude.
        claude: { type: 'generic', token: TOKEN, model: 'claude/claude-test', media: images },
        tgroup: {
          type: 'telegram',
          botToken: TG_TOKEN,
          secretToken: TG_SECRET,
          botUsername: 'media_bot',
          apiUrl: telegram.url,
          stream: false,
          media: images,
          access: { groups: 'mention', groupContext: true },
        },
        tg: { type: 'telegram', botToken: TG_TOKEN, secretToken: TG_SECRET, apiUrl: telegram.url, stream: false, media: images },
        team: {
          type: 'slack',
          botToken: SLACK_TOKEN,
          signingSecret: SLACK_SECRET,
          apiUrl: slack.apiUrl,
          stream: false,
          media: images,
        },
      },
      worker: { attempts: 3, backoffMs: 50, lockMs: 2000 },
    },
  });
  worker = startTestWorker(gateway.settings);
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await Promise.all([upstream?.close(), blind?.close(), claude?.close(), files?.close(), telegram?.close(), slack?.close()]);
});

let seq = 0;
function post(hook: string, body: unknown) {
  return fetch(`${gateway.url}/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
}

/** Sends a generic message and waits for its job to end: its reply, status and attempts. */
function ask(hook: string, body: Record<string, unknown>) {
  return askHook(gateway.url, hook, TOKEN, { from: `user-${++seq}`, ...body });
}

const seen = (bytes: Buffer) => describeBytes('image/png', bytes);

describe('images sent to a hook', () => {
  it('gives the model a generic attachment fetched by URL, and keeps only a placeholder in memory', async () => {
    const from = `ada-${++seq}`;
    const first = await ask('support', {
      from,
      text: 'what is this?',
      attachments: [{ url: `${files.url}/receipt.png`, type: 'image/png', name: 'receipt.png' }],
    });
    expect(first.status).toBe('completed');
    expect(first.reply).toBe(`saw: what is this? | images: ${seen(PNG)} | earlier: `);
    const second = await ask('support', { from, text: 'and now?' });
    expect(second.reply).toBe(`saw: and now? | images:  | earlier: [image: receipt.png] what is this? / ${first.reply}`);
  });

  it('takes an attachment sent as data, and sniffs its type from the bytes rather than the declared one', async () => {
    const view = await ask('support', {
      text: 'look',
      attachments: [{ data: PNG.toString('base64'), type: 'image/jpeg', name: 'x.jpg' }],
    });
    expect(view.reply).toBe(`saw: look | images: ${seen(PNG)} | earlier: `);
  });

  it('gives Claude the image as a base64 image block, on a hook that streams its replies', async () => {
    const view = await ask('claude', {
      text: 'and this?',
      attachments: [{ url: `${files.url}/receipt.png`, name: 'receipt.png' }],
    });
    expect(view, JSON.stringify(view)).toMatchObject({
      status: 'completed',
      reply: `Claude saw: and this? | images: ${seen(PNG)}`,
    });
    const refused = await ask('claude', { text: 'fake', attachments: [{ url: `${files.url}/lying.png` }] });
    expect(refused).toMatchObject({ status: 'completed', attempts: 1 });
    expect(refused.reply).toMatch(/cannot read that kind of file/);
  });

  it('answers a Telegram photo through getFile and the file URL, the largest size', async () => {
    const small = telegram.addFile(Buffer.from('thumbnail'));
    const large = telegram.addFile(PNG);
    const chatId = 5_000 + ++seq;
    const body = telegramUpdate(
      {
        message_id: seq,
        chat: { id: chatId, type: 'private' },
        text: undefined,
        caption: 'my receipt',
        photo: [
          { file_id: small, file_unique_id: 's', width: 90, height: 90 },
          { file_id: large, file_unique_id: 'l', width: 1280, height: 1280 },
        ],
      },
      { update_id: 800_000 + seq },
    );
    const res = await fetch(`${gateway.url}/hooks/tg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TELEGRAM_SECRET_HEADER]: TG_SECRET },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await eventually(
      () => expect(telegram.chat(chatId).map((m) => m.text)).toEqual([`saw: my receipt | images: ${seen(PNG)} | earlier: `]),
      300,
    );
    expect(telegram.calls.filter((c) => c.method === 'getFile').map((c) => c.body.file_id)).toContain(large);
  });

  it('keeps a group photo not addressed to the bot as a placeholder in memory, without fetching it', async () => {
    const photo = telegram.addFile(PNG);
    const chatId = -100_000 - ++seq;
    const group = { id: chatId, type: 'supergroup' };
    const sendUpdate = (message: Record<string, unknown>) =>
      fetch(`${gateway.url}/hooks/tgroup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TELEGRAM_SECRET_HEADER]: TG_SECRET },
        body: JSON.stringify(telegramUpdate({ chat: group, message_id: ++seq, ...message }, { update_id: 900_000 + seq })),
      });
    const downloads = telegram.downloads;
    await sendUpdate({
      text: undefined,
      caption: 'look at this',
      photo: [{ file_id: photo, file_unique_id: 'g', width: 9, height: 9 }],
    });
    const question = '@media_bot what was that?';
    await sendUpdate({ text: question, entities: [{ type: 'mention', offset: 0, length: 10 }] });
    await eventually(
      () =>
        expect(telegram.chat(chatId).map((m) => m.text)).toEqual([
          `saw: ${question} | images:  | earlier: Ada: [image: photo.jpg] look at this`,
        ]),
      500,
    );
    expect(telegram.downloads).toBe(downloads);
  });

  /** A direct message sharing `file` (a `file_share` message event), signed as Slack signs it. */
  async function shareSlackFile(file: ReturnType<FakeSlack['addFile']>, text: string) {
    const ts = `1736942400.${String(++seq).padStart(6, '0')}`;
    const body = slackMessageEvent(
      { subtype: 'file_share', text, ts, event_ts: ts, channel_type: 'im', channel: 'D0MEDIA', files: [file] },
      { event_id: `Ev${seq}` },
    );
    const rawBody = JSON.stringify(body);
    const res = await fetch(`${gateway.url}/hooks/team`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...slackSignedHeaders(SLACK_SECRET, rawBody, Date.now()) },
      body: rawBody,
    });
    return { res, ts };
  }

  it('answers a Slack file fetched from url_private_download with the bot token', async () => {
    const file = slack.addFile(PNG, 'chart.png', 'image/png');
    const { res, ts } = await shareSlackFile(file, 'see chart');
    expect(res.status).toBe(200);
    await eventually(
      () => expect(slack.thread('D0MEDIA', ts).map((m) => m.text)).toEqual([`saw: see chart | images: ${seen(PNG)} | earlier: `]),
      300,
    );
    expect(slack.downloads).toBe(1);
  });

  it('never sends the Slack bot token to a file host that is not Slack’s: the sender is told, nothing fetched', async () => {
    const file = { ...slack.addFile(PNG, 'elsewhere.png', 'image/png') };
    file.url_private_download = `${files.url}/small.png`; // another origin than the Slack API's
    file.url_private = file.url_private_download;
    const fetchedBefore = files.requests.length;
    const { res, ts } = await shareSlackFile(file, 'see this');
    expect(res.status).toBe(200);
    await eventually(
      () => expect(slack.thread('D0MEDIA', ts).map((m) => m.text)).toEqual(['Sorry, I cannot fetch files from that address.']),
      300,
    );
    expect(files.requests.length).toBe(fetchedBefore);
  });

  it('answers politely, without the model, when a file is too big, even one that never ends', async () => {
    const calls = upstream.requests.length;
    const big = await ask('small', { text: 'big', attachments: [{ url: `${files.url}/big.png` }] });
    expect(big).toMatchObject({ status: 'completed', attempts: 1 });
    expect(big.reply).toMatch(/too big/);
    const endless = await ask('small', { text: 'endless', attachments: [{ url: `${files.url}/endless.png` }] });
    expect(endless).toMatchObject({ status: 'completed', attempts: 1 });
    expect(endless.reply).toMatch(/too big/);
    await eventually(() => expect(endlessClosed).toBe(true), 500);
    const data = await ask('small', { text: 'data', attachments: [{ data: BIG_PNG.toString('base64') }] });
    expect(data.reply).toMatch(/too big/);
    expect(upstream.requests.length).toBe(calls);
  });

  it('refuses a file whose bytes are not an image, whatever its Content-Type says', async () => {
    const view = await ask('support', { text: 'png?', attachments: [{ url: `${files.url}/lying.png`, type: 'image/png' }] });
    expect(view).toMatchObject({ status: 'completed', attempts: 1 });
    expect(view.reply).toMatch(/cannot read that kind of file/);
  });

  it('says so when the file is gone (404), without retrying', async () => {
    const view = await ask('support', { text: 'old', attachments: [{ url: `${files.url}/expired.png` }] });
    expect(view).toMatchObject({ status: 'completed', attempts: 1 });
    expect(view.reply).toMatch(/could not fetch that file/);
  });

  it('refuses a URL on a private address unless the hook allows private URLs', async () => {
    const before = files.requests.length;
    const view = await ask('strict', { text: 'inside', attachments: [{ url: `${files.url}/receipt.png` }] });
    expect(view.reply).toMatch(/cannot fetch files from that address/);
    const named = await ask('strict', {
      text: 'by name',
      attachments: [{ url: `${files.url.replace('127.0.0.1', 'localhost')}/receipt.png` }],
    });
    expect(named.reply).toMatch(/cannot fetch files from that address/);
    expect(files.requests.length).toBe(before);
  });

  it('tells the sender images are off on a hook without media, and keeps the bytes out of logs', async () => {
    const view = await ask('plain', { text: 'hi', attachments: [{ data: PNG.toString('base64'), type: 'image/png' }] });
    expect(view.reply).toMatch(/cannot look at images/);
    const base64 = PNG.toString('base64');
    expect([...gateway.rawLogs, ...worker.logs].some((line) => line.includes(base64))).toBe(false);
  });

  it('answers 400 in the OpenAI error shape for an attachment with both url and data, or bad base64', async () => {
    for (const attachments of [[{ url: `${files.url}/receipt.png`, data: 'AAAA' }], [{ data: '%%%not base64%%%' }]]) {
      const res = await post('support', { from: 'x', text: 'hi', attachments });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ type: 'invalid_request_error' });
      expect(String(error.param)).toMatch(/^attachments/);
    }
  });
});

describe('a model that cannot see images', () => {
  const NO_VISION = 'Sorry, I cannot look at images with this model; please describe it in words.';
  const attachment = () => ({ url: `${files.url}/receipt.png`, type: 'image/png', name: 'receipt.png' });

  it('answers politely when the upstream refuses the image (400), the job completes, and memory does not keep the refusal', async () => {
    const from = `ada-${++seq}`;
    const refused = await ask('blind', { from, text: 'what is this?', attachments: [attachment()] });
    expect(refused, JSON.stringify(refused)).toMatchObject({ status: 'completed', attempts: 1, reply: NO_VISION });
    // The model was asked (and refused the image part); a text message of the same person is answered as usual.
    const next = await ask('blind', { from, text: 'it is a receipt' });
    expect(next.reply).toBe('blind saw: it is a receipt | earlier: ');
  });

  it('answers the same on a hook that streams its replies', async () => {
    const refused = await ask('blindlive', { text: 'and this?', attachments: [attachment()] });
    expect(refused, JSON.stringify(refused)).toMatchObject({ status: 'completed', attempts: 1, reply: NO_VISION });
  });

  it('with media.vision false, refuses an image without fetching it or asking the model', async () => {
    const fetched = files.requests.length;
    const asked = upstream.requests.length;
    const refused = await ask('novision', { text: 'look', attachments: [attachment()] });
    expect(refused).toMatchObject({ status: 'completed', attempts: 1, reply: NO_VISION });
    expect(files.requests.length).toBe(fetched);
    expect(upstream.requests.length).toBe(asked);
    // Text alone still goes to the model.
    const words = await ask('novision', { text: 'hello' });
    expect(words.reply).toBe('saw: hello | images:  | earlier: ');
  });
});
