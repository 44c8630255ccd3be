import {
  answerText,
  type FakeSlack,
  type FakeTelegram,
  fakeTranscript,
  type LocalServer,
  lastUserWords,
  sendJson,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeSlack,
  startFakeTelegram,
  startLocalServer,
  startOpenAIUpstream,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
  transcriptionsHandler,
  wavFile,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askHook } from '../test-support/ask-hook.js';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const ADMIN = 'admin-key-voice-0123456789';
const TOKEN = 'hook-token-voice-0123456789';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_voice';
const SLACK_TOKEN = 'xoxb-0000000000-1111111111-voice';
const SLACK_SECRET = 'slack-signing-secret-voice';

let upstream: LocalServer;
let refusing: LocalServer;
let flaky: LocalServer;
/** Chat calls the flaky model has answered 500 (it fails each message's first attempt). */
const flakyFailed = new Set<string>();
let telegram: FakeTelegram;
let slack: FakeSlack;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  // The model says what it heard (the last user turn's text) and what memory held before it;
  // transcriptions are answered by the fake's OpenAI-shaped handler, which names the bytes' digest.
  upstream = await startOpenAIUpstream((req, res, raw) => {
    if (req.url.endsWith('/audio/transcriptions')) return transcriptionsHandler(req, res, raw);
    const body = req.json as { messages: { role: string; content: unknown }[] };
    const earlier = body.messages.slice(0, -1).map((m) => (typeof m.content === 'string' ? m.content : '[parts]'));
    answerText(req, res, `heard: ${lastUserWords(req)} | earlier: ${earlier.join(' / ')}`);
  });
  // An upstream that refuses every file, as OpenAI answers a format it cannot decode.
  refusing = await startLocalServer((_req, res) =>
    sendJson(res, 400, { error: { message: 'Invalid file format.', type: 'invalid_request_error', param: 'file' } }),
  );
  // A model that fails the first call for each turn with a 500 (the job is retried), then answers.
  flaky = await startOpenAIUpstream((req, res) => {
    const words = lastUserWords(req);
    if (flakyFailed.has(words)) return answerText(req, res, `flaky heard: ${words}`);
    flakyFailed.add(words);
    sendJson(res, 500, { error: { message: 'The server had an error while processing your request.', type: 'server_error' } });
  });
  telegram = await startFakeTelegram({ botToken: TG_TOKEN });
  slack = await startFakeSlack({ botToken: SLACK_TOKEN });
  const voice = { audio: 'mock/gpt-4o-transcribe', allowPrivateUrls: true };
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      adminKeys: [ADMIN],
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'], audioModels: ['gpt-4o-transcribe'] },
        deaf: { type: 'openai', baseUrl: `${refusing.url}/v1`, audioModels: ['whisper-1'], maxRetries: 0 },
        flaky: { type: 'openai', baseUrl: `${flaky.url}/v1`, models: ['gpt-4o-flaky'], maxRetries: 0 },
      },
      hooks: {
        voice: { type: 'generic', token: TOKEN, stream: false, media: voice },
        // Streamed (a generic hook's default): the same turn on the live path.
        live: { type: 'generic', token: TOKEN, media: voice },
        mute: { type: 'generic', token: TOKEN, stream: false, media: { images: true, allowPrivateUrls: true } },
        deaf: { type: 'generic', token: TOKEN, stream: false, media: { audio: 'deaf/whisper-1' } },
        // Transcribed by the mock upstream, answered by a model that fails each first attempt.
        retried: { type: 'generic', token: TOKEN, stream: false, model: 'flaky/gpt-4o-flaky', media: voice },
        tg: { type: 'telegram', botToken: TG_TOKEN, secretToken: TG_SECRET, apiUrl: telegram.url, stream: false, media: voice },
        team: {
          type: 'slack',
          botToken: SLACK_TOKEN,
          signingSecret: SLACK_SECRET,
          apiUrl: slack.apiUrl,
          stream: false,
          media: voice,
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
  await Promise.all([upstream?.close(), refusing?.close(), flaky?.close(), telegram?.close(), slack?.close()]);
});

let seq = 0;

/** Sends a generic message and waits for its job to end: its reply, status and attempts. */
function ask(hook: string, body: Record<string, unknown>) {
  return askHook(gateway.url, hook, TOKEN, { from: `user-${++seq}`, ...body });
}

const transcriptions = () => upstream.requests.filter((r) => r.url.endsWith('/audio/transcriptions'));

describe('voice notes and audio sent to a hook', () => {
  it('transcribes a generic audio attachment with the hook’s audio model: the transcript is the turn, memory keeps [voice]', async () => {
    const note = wavFile(4000);
    const from = `ada-${++seq}`;
    const first = await ask('voice', {
      from,
      attachments: [{ data: note.toString('base64'), type: 'audio/wav', name: 'note.wav' }],
    });
    const heard = fakeTranscript(note, 'note.wav');
    expect(first).toMatchObject({ status: 'completed', reply: `heard: ${heard} | earlier: ` });
    // The upstream got the very bytes, as a multipart `file` with the hook's model.
    const sent = transcriptions().at(-1)!;
    expect(sent.body).toContain('name="model"\r\n\r\ngpt-4o-transcribe\r\n');
    const second = await ask('voice', { from, text: 'and?' });
    expect(second.reply).toBe(`heard: and? | earlier: [voice] ${heard} / ${first.reply}`);
  });

  it('transcribes a voice note once per message: a retry after the model failed reuses the recorded transcript', async () => {
    const note = wavFile(3300);
    const before = transcriptions().length;
    const view = await ask('retried', { attachments: [{ data: note.toString('base64'), type: 'audio/wav', name: 'once.wav' }] });
    const heard = fakeTranscript(note, 'once.wav');
    expect(view, JSON.stringify(view)).toMatchObject({ status: 'completed', attempts: 2, reply: `flaky heard: ${heard}` });
    // Two runs of the job, two model calls, one transcription (one download, one bill).
    expect(flaky.requests.filter((r) => lastUserWords(r) === heard)).toHaveLength(2);
    expect(transcriptions().length - before).toBe(1);
  });

  it('meters the transcription as the hook’s usage, under the audio model', async () => {
    const note = wavFile(1500);
    await ask('voice', { attachments: [{ data: note.toString('base64'), type: 'audio/wav' }] });
    await eventually(async () => {
      const res = await fetch(`${gateway.url}/admin/usage?group_by=model`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const { data } = (await res.json()) as { data: { model: string; requests: number; prompt_tokens: number }[] };
      const row = data.find((r) => r.model === 'mock/gpt-4o-transcribe');
      // The fake counts each byte as an input token: at least this note's.
      expect(row?.prompt_tokens).toBeGreaterThanOrEqual(note.length);
    });
  });

  it('answers the transcript with the caption on a streamed hook too', async () => {
    const note = wavFile(2100);
    const view = await ask('live', { text: 'please', attachments: [{ data: note.toString('base64'), name: 'n.wav' }] });
    expect(view).toMatchObject({ status: 'completed', reply: `heard: please\n\n${fakeTranscript(note, 'n.wav')} | earlier: ` });
  });

  it('hears a Telegram voice note through getFile, and remembers it with its length: [voice 0:14]', async () => {
    const note = wavFile(3000);
    const fileId = telegram.addFile(note);
    const chatId = 7_000 + ++seq;
    const send = (message: Record<string, unknown>) =>
      fetch(`${gateway.url}/hooks/tg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TELEGRAM_SECRET_HEADER]: TG_SECRET },
        body: JSON.stringify(
          telegramUpdate({ message_id: ++seq, chat: { id: chatId, type: 'private' }, ...message }, { update_id: 700_000 + seq }),
        ),
      });
    const voice = { file_id: fileId, file_unique_id: 'v', duration: 14, mime_type: 'audio/ogg', file_size: note.length };
    expect((await send({ text: undefined, voice })).status).toBe(200);
    // The upload is named for what the bytes are (WAV here), not what the platform declared.
    const heard = fakeTranscript(note, 'voice.wav');
    await eventually(() => expect(telegram.chat(chatId).map((m) => m.text)).toEqual([`heard: ${heard} | earlier: `]), 300);
    expect((await send({ text: 'thanks' })).status).toBe(200);
    await eventually(
      () =>
        expect(telegram.chat(chatId).at(-1)?.text).toBe(
          `heard: thanks | earlier: [voice 0:14] ${heard} / heard: ${heard} | earlier: `,
        ),
      300,
    );
  });

  it('hears a Slack audio file fetched with the bot token', async () => {
    const note = wavFile(2500);
    const file = slack.addFile(note, 'memo.wav', 'audio/wav');
    const ts = `1736942400.${String(++seq).padStart(6, '0')}`;
    const rawBody = JSON.stringify(
      slackMessageEvent(
        { subtype: 'file_share', text: '', ts, event_ts: ts, channel_type: 'im', channel: 'D0VOICE', files: [file] },
        { event_id: `EvVoice${seq}` },
      ),
    );
    const res = await fetch(`${gateway.url}/hooks/team`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...slackSignedHeaders(SLACK_SECRET, rawBody, Date.now()) },
      body: rawBody,
    });
    expect(res.status).toBe(200);
    await eventually(
      () =>
        expect(slack.thread('D0VOICE', ts).map((m) => m.text)).toEqual([
          `heard: ${fakeTranscript(note, 'memo.wav')} | earlier: `,
        ]),
      300,
    );
  });

  it('answers politely, without transcribing, when audio is off for the hook', async () => {
    const before = transcriptions().length;
    const declared = await ask('mute', { attachments: [{ data: wavFile(100).toString('base64'), type: 'audio/wav' }] });
    expect(declared).toMatchObject({ status: 'completed', attempts: 1 });
    expect(declared.reply).toBe('Sorry, I cannot listen to voice notes here; please send your question as text.');
    // Declared as nothing in particular: the bytes show it is audio.
    const sniffed = await ask('mute', { attachments: [{ data: wavFile(100).toString('base64') }] });
    expect(sniffed.reply).toBe(declared.reply);
    expect(transcriptions().length).toBe(before);
  });

  it('answers politely, and completes, when the transcription fails', async () => {
    const view = await ask('deaf', { attachments: [{ data: wavFile(100).toString('base64'), type: 'audio/wav' }] });
    expect(view).toMatchObject({ status: 'completed', attempts: 1 });
    expect(view.reply).toBe('Sorry, I could not make out that voice note. Could you send it again, or type your question?');
    expect(refusing.requests.length).toBeGreaterThan(0);
    // Our fault it is not: a warning, naming the model, never an error, never the audio.
    const lines = worker.logs.filter((line) => line.includes('voice note not transcribed'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => JSON.parse(line).level === 'warn' && line.includes('deaf/whisper-1'))).toBe(true);
    expect(worker.logs.some((line) => JSON.parse(line).level === 'error')).toBe(false);
  });
});
