import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defaultOpenAIHandler,
  fakeTranscript,
  type LocalServer,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import OpenAI, { toFile } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';

const ADMIN = 'admin-key-transcribe-0123456789';
const KEY = { key: 'sk-transcribe-test-0001', name: 'listener' };
const METER = { key: 'sk-transcribe-meter-001', name: 'meter' }; // the usage test's own key
const LIMIT = 64 * 1024; // limits.maxAudioBytes, small so that "too big" is cheap

let upstream: LocalServer;
let silent: LocalServer;
let gateway: TestGateway;
let client: OpenAI;
let uploads: string;
const originalTmp = process.env.TMPDIR;

/** Bytes that are not UTF-8 (every value 0–255), so a lossy hop on the way would change the digest. */
const audio = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + 3) % 256));

beforeAll(async () => {
  // Uploads go to the OS temporary directory: a directory of this file's own shows they are removed.
  uploads = mkdtempSync(join(tmpdir(), 'switchboard-uploads-'));
  process.env.TMPDIR = uploads;
  upstream = await startOpenAIUpstream();
  silent = await startLocalServer(() => {}); // accepts, never answers
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: {
        mock: {
          type: 'openai',
          baseUrl: `${upstream.url}/v1`,
          models: ['gpt-4o'],
          audioModels: ['whisper-1', 'gpt-4o-transcribe'],
        },
        slow: { type: 'openai', baseUrl: `${silent.url}/v1`, audioModels: ['whisper-slow'], timeoutMs: 300, maxRetries: 0 },
        claude: { type: 'anthropic', baseUrl: `${upstream.url}/anthropic`, models: ['claude-sonnet-4'] },
      },
      limits: { maxAudioBytes: LIMIT },
      apiKeys: [KEY, METER],
      adminKeys: [ADMIN],
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: KEY.key, maxRetries: 0 });
});

afterEach(() => upstream.handle(defaultOpenAIHandler));

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await silent?.close();
  process.env.TMPDIR = originalTmp;
  if (uploads) rmSync(uploads, { recursive: true, force: true });
});

/** What the gateway left in the temporary directory (its own test config directory aside). */
const leftovers = () => readdirSync(uploads).filter((name) => !name.startsWith('switchboard-test-'));

const lastUpstream = () => upstream.requests.at(-1)!;

/** A multipart POST made by hand (for what the openai client would not send). */
function postForm(form: FormData) {
  return fetch(`${gateway.baseURL}/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY.key}` },
    body: form,
  });
}

function formWith(fields: Record<string, string>, file?: { bytes: Buffer; name: string; field?: string }) {
  const form = new FormData();
  if (file) form.append(file.field ?? 'file', new Blob([new Uint8Array(file.bytes)]), file.name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

async function errorOf(res: Response) {
  const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  return { status: res.status, ...body.error };
}

describe('POST /v1/audio/transcriptions', () => {
  it('answers client.audio.transcriptions.create (json) with the transcript of the very bytes sent, and its usage', async () => {
    const bytes = audio(5000);
    const result = await client.audio.transcriptions.create({
      file: await toFile(bytes, 'a.ogg', { type: 'audio/ogg' }),
      model: 'mock/gpt-4o-transcribe',
    });
    expect(result.text).toBe(fakeTranscript(bytes, 'a.ogg'));
    expect(result.usage).toEqual({ type: 'tokens', input_tokens: 5000, output_tokens: 9, total_tokens: 5009 });
    // The upstream got its own model name, the file under its name, and nothing else it did not need.
    const sent = lastUpstream();
    expect(sent.url).toBe('/v1/audio/transcriptions');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toContain('name="model"\r\n\r\ngpt-4o-transcribe\r\n');
    expect(sent.body).toContain('filename="a.ogg"');
    expect(leftovers()).toEqual([]);
  });

  it('answers text as plain text', async () => {
    const bytes = audio(1234);
    const text = await client.audio.transcriptions.create({
      file: await toFile(bytes, 'note.mp3'),
      model: 'mock/whisper-1',
      response_format: 'text',
    });
    expect(text).toBe(fakeTranscript(bytes, 'note.mp3'));
  });

  it('answers verbose_json with the segments, and passes language, prompt and temperature on', async () => {
    const bytes = audio(32_000);
    const result = await client.audio.transcriptions.create({
      file: await toFile(bytes, 'long.wav'),
      model: 'whisper-1', // a bare name one provider serves
      response_format: 'verbose_json',
      language: 'de',
      prompt: 'Switchboard, Redis',
      temperature: 0.2,
    });
    expect(result.text).toBe(fakeTranscript(bytes, 'long.wav'));
    expect(result.language).toBe('de');
    expect(result.duration).toBe(2);
    expect(result.segments?.[0]?.text).toBe(result.text);
    expect(result.usage).toEqual({ type: 'duration', seconds: 2 });
    const body = lastUpstream().body;
    for (const [name, value] of [
      ['model', 'whisper-1'],
      ['language', 'de'],
      ['prompt', 'Switchboard, Redis'],
      ['temperature', '0.2'],
      ['response_format', 'verbose_json'],
    ]) {
      expect(body).toContain(`name="${name}"\r\n\r\n${value}\r\n`);
    }
  });

  it('records the usage under the API key: tokens as the upstream counted them, a duration as a call of 0 tokens', async () => {
    const meter = new OpenAI({ baseURL: gateway.baseURL, apiKey: METER.key, maxRetries: 0 });
    await meter.audio.transcriptions.create({ file: await toFile(audio(700), 'b.ogg'), model: 'mock/gpt-4o-transcribe' });
    await meter.audio.transcriptions.create({ file: await toFile(audio(700), 'b.ogg'), model: 'mock/whisper-1' });
    await eventually(async () => {
      const res = await fetch(`${gateway.url}/admin/usage?group_by=key`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const { data } = (await res.json()) as { data: Record<string, unknown>[] };
      expect(data.find((row) => row.key === METER.name)).toMatchObject({ requests: 2, prompt_tokens: 700, completion_tokens: 9 });
    });
  });

  it('answers 404 model_not_found for a model no provider serves, 400 for a chat model (Anthropic has no audio)', async () => {
    const unknown = await postForm(formWith({ model: 'mock/whisper-9' }, { bytes: audio(10), name: 'a.ogg' }));
    expect(await errorOf(unknown)).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
    for (const model of ['claude/claude-sonnet-4', 'mock/gpt-4o']) {
      const chat = await postForm(formWith({ model }, { bytes: audio(10), name: 'a.ogg' }));
      expect(await errorOf(chat)).toMatchObject({ status: 400, code: 'model_not_supported', param: 'model' });
    }
    // With the openai client: its NotFoundError.
    await expect(
      client.audio.transcriptions.create({ file: await toFile(audio(10), 'a.ogg'), model: 'nobody/whisper' }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('answers 400 in the OpenAI error shape for a form without a file, without a model, or with a format it does not serve', async () => {
    const noFile = await errorOf(await postForm(formWith({ model: 'mock/whisper-1' })));
    expect(noFile).toMatchObject({ status: 400, param: 'file', code: 'missing_file' });
    const otherName = await errorOf(
      await postForm(formWith({ model: 'mock/whisper-1' }, { bytes: audio(10), name: 'a.ogg', field: 'audio' })),
    );
    expect(otherName).toMatchObject({ status: 400, param: 'file' });
    const noModel = await errorOf(await postForm(formWith({}, { bytes: audio(10), name: 'a.ogg' })));
    expect(noModel).toMatchObject({ status: 400, param: 'model', type: 'invalid_request_error' });
    const srt = await errorOf(
      await postForm(formWith({ model: 'mock/whisper-1', response_format: 'srt' }, { bytes: audio(10), name: 'a.ogg' })),
    );
    expect(srt).toMatchObject({ status: 400, param: 'response_format' });
    expect(srt.message).toContain('json, text, verbose_json');
    const empty = await errorOf(await postForm(formWith({ model: 'mock/whisper-1' }, { bytes: Buffer.alloc(0), name: 'a.ogg' })));
    expect(empty).toMatchObject({ status: 400, code: 'invalid_body' });
    await expect(
      client.audio.transcriptions.create({
        file: await toFile(audio(10), 'a.ogg'),
        model: 'mock/whisper-1',
        response_format: 'vtt',
      }),
    ).rejects.toMatchObject({ status: 400, param: 'response_format' });
    expect(leftovers()).toEqual([]);
  });

  it('answers 400 to a body that is not multipart, and JSON routes still refuse multipart (415)', async () => {
    const json = await fetch(`${gateway.baseURL}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/whisper-1', file: 'aGVsbG8=' }),
    });
    expect(await errorOf(json)).toMatchObject({ status: 400, code: 'invalid_body' });
    const chat = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY.key}` },
      body: formWith({ model: 'mock/gpt-4o' }, { bytes: audio(10), name: 'a.ogg' }),
    });
    expect(await errorOf(chat)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
  });

  it('answers 413 to a file over limits.maxAudioBytes, declared or found while reading, and keeps nothing of it', async () => {
    const requestsBefore = upstream.requests.length;
    // Declared: the Content-Length alone is past the limit, nothing is read.
    const declared = await postForm(formWith({ model: 'mock/whisper-1' }, { bytes: audio(4 * LIMIT), name: 'big.ogg' }));
    expect(await errorOf(declared)).toMatchObject({ status: 413, code: 'request_too_large', param: 'file' });
    // Found while reading: within the form's room, but the file crosses the limit by one byte.
    const crossing = await postForm(formWith({ model: 'mock/whisper-1' }, { bytes: audio(LIMIT + 1), name: 'big.ogg' }));
    expect(await errorOf(crossing)).toMatchObject({ status: 413, code: 'request_too_large', param: 'file' });
    // Exactly the limit is accepted.
    const exact = await client.audio.transcriptions.create({
      file: await toFile(audio(LIMIT), 'edge.ogg'),
      model: 'mock/whisper-1',
    });
    expect(exact.text).toBe(fakeTranscript(audio(LIMIT), 'edge.ogg'));
    expect(upstream.requests.length).toBe(requestsBefore + 1);
    await eventually(() => expect(leftovers()).toEqual([]));
  });

  it('sends the same bytes again when the upstream asks for a retry (503), and answers once', async () => {
    const before = upstream.requests.length;
    let failed = false;
    upstream.handle((req, res, raw) => {
      if (failed) return defaultOpenAIHandler(req, res, raw);
      failed = true;
      sendJson(res, 503, { error: { message: 'overloaded', type: 'server_error' } });
    });
    const bytes = audio(3000);
    const result = await client.audio.transcriptions.create({ file: await toFile(bytes, 'retry.ogg'), model: 'mock/whisper-1' });
    expect(result.text).toBe(fakeTranscript(bytes, 'retry.ogg'));
    expect(upstream.requests.length).toBe(before + 2);
    // Each attempt carried the whole file (a spent body would have sent nothing the second time).
    for (const sent of upstream.requests.slice(-2)) expect(sent.bytes.includes(bytes)).toBe(true);
  });

  it('answers 504 upstream_timeout when the upstream does not answer within its timeoutMs, and keeps no file', async () => {
    const res = await postForm(formWith({ model: 'slow/whisper-slow' }, { bytes: audio(100), name: 'a.ogg' }));
    expect(await errorOf(res)).toMatchObject({ status: 504, code: 'upstream_timeout' });
    await eventually(() => expect(leftovers()).toEqual([]));
  });

  it('removes the part of a file a client sent before hanging up, and logs no error', async () => {
    const url = new URL(gateway.url);
    const boundary = 'hangup-boundary';
    const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="cut.ogg"\r\ncontent-type: audio/ogg\r\n\r\n`;
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/audio/transcriptions HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${KEY.key}\r\n` +
        `content-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${LIMIT}\r\n\r\n${head}`,
    );
    socket.write(audio(20_000));
    await eventually(() => expect(leftovers().length).toBe(1)); // formidable is writing it
    socket.destroy();
    await eventually(() => expect(leftovers()).toEqual([]));
    await eventually(() =>
      expect(gateway.logs.some((l) => l.path === '/v1/audio/transcriptions' && l.status === 499)).toBe(true),
    );
    expect(gateway.logs.filter((l) => l.message === 'unhandled error')).toEqual([]);
  });

  it('asks for the API key like the other /v1 calls', async () => {
    const res = await fetch(`${gateway.baseURL}/audio/transcriptions`, {
      method: 'POST',
      body: formWith({ model: 'mock/whisper-1' }, { bytes: audio(10), name: 'a.ogg' }),
    });
    expect((await errorOf(res)).status).toBe(401);
  });
});
