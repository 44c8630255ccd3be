import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from './http-server.js';

/**
 * A local server speaking the OpenAI chat-completions wire format, as documented: JSON
 * completions, SSE streams of `chat.completion.chunk`s ending in `data: [DONE]`, and error
 * bodies `{"error":{…}}`. By default it answers `Upstream says: <last user text>`.
 */
export function completionBody(model: string, content: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-upstream123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    ...extra,
  };
}

export function chunkBody(model: string, delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: 'chatcmpl-upstream123',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function lastUserText(req: RecordedRequest): string {
  const body = req.json as { messages?: { role: string; content: unknown }[] } | undefined;
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

/**
 * The images of the last user message as a vision model receives them from OpenAI-type clients:
 * `image_url` parts whose `url` is a data URL (https://platform.openai.com/docs/guides/images-vision,
 * "Passing a Base64 encoded image"), each described as `<media type> <bytes> sha256:<first 12 hex>`
 * of the decoded bytes, so a test can check the model got exactly the file's bytes.
 */
export function imagesSeen(req: RecordedRequest): string[] {
  const body = req.json as { messages?: { role: string; content: unknown }[] } | undefined;
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!Array.isArray(last?.content)) return [];
  return last.content.flatMap((part: { type?: string; image_url?: { url?: string } }) => {
    if (part.type !== 'image_url') return [];
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url?.url ?? '');
    if (!match) return [`not a data URL: ${String(part.image_url?.url).slice(0, 40)}`];
    return [describeBytes(match[1]!, Buffer.from(match[2]!, 'base64'))];
  });
}

/** How `imagesSeen` describes a file: its media type, size and hash. */
export function describeBytes(type: string, bytes: Buffer): string {
  return `${type} ${bytes.length} sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
}

/** The text parts (or the string) of the last user message. */
export function lastUserWords(req: RecordedRequest): string {
  const body = req.json as { messages?: { role: string; content: unknown }[] } | undefined;
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (typeof last?.content === 'string') return last.content;
  if (!Array.isArray(last?.content)) return '';
  return last.content
    .flatMap((part: { type?: string; text?: string }) => (part.type === 'text' ? [part.text ?? ''] : []))
    .join('');
}

export function openSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

export function writeSse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/**
 * A vector for `text` that tests can predict: `dimensions` numbers (3 unless asked), each a
 * function of the text and its position.
 */
export function fakeEmbedding(text: string, dimensions = 3): number[] {
  let seed = 0;
  for (const char of text) seed = (seed * 31 + (char.codePointAt(0) ?? 0)) % 1000;
  return Array.from({ length: dimensions }, (_, i) => ((seed + i * 7) % 100) / 100);
}

/** POST /embeddings as OpenAI documents it: floats, or float32 little-endian bytes in base64. */
export const embeddingsHandler: Handler = (req, res) => {
  const body = req.json as { model?: string; input?: unknown; dimensions?: number; encoding_format?: string };
  const input = body?.input;
  // One string or one token array is one input; a list of either is one input each.
  const list = Array.isArray(input) && !input.every((item) => typeof item === 'number') ? input : [input];
  const inputs = list.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  const data = inputs.map((text, index) => {
    const vector = fakeEmbedding(text, body?.dimensions);
    if (body?.encoding_format !== 'base64') return { object: 'embedding', index, embedding: vector };
    const bytes = Buffer.alloc(vector.length * 4);
    for (const [i, value] of vector.entries()) bytes.writeFloatLE(value, i * 4);
    return { object: 'embedding', index, embedding: bytes.toString('base64') };
  });
  const tokens = inputs.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
  sendJson(res, 200, {
    object: 'list',
    data,
    model: body?.model ?? 'unknown',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
};

/**
 * The transcript the fake upstream makes of `bytes`: it names their count, the file name and the
 * start of their sha256, so a test can tell the very bytes it sent arrived.
 */
export function fakeTranscript(bytes: Uint8Array, filename: string): string {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `Heard ${bytes.length} bytes of ${filename} (sha256 ${digest}).`;
}

/**
 * POST /audio/transcriptions as OpenAI's API reference documents it: a multipart form with `file`
 * and `model` (and `language`, `prompt`, `temperature`, `response_format`), answered as `json`
 * (`{text, usage}`), `text` (the bare transcript) or `verbose_json` (`task`, `language`,
 * `duration`, `text`, `segments`, `usage`). Usage as the `openai` package types it
 * (`Transcription.Usage`): `{type:"duration", seconds}` for whisper models, else
 * `{type:"tokens", input_tokens, output_tokens, total_tokens}`. The multipart body is read with
 * the platform's own parser (the Fetch API's `Response.formData()`).
 */
export const transcriptionsHandler: Handler = async (req, res) => {
  let form: FormData;
  try {
    const type = String(req.headers['content-type'] ?? '');
    form = await new Response(new Uint8Array(req.bytes), { headers: { 'content-type': type } }).formData();
  } catch {
    return sendJson(res, 400, { error: { message: 'Could not parse multipart form', type: 'invalid_request_error' } });
  }
  const file = form.get('file');
  const model = String(form.get('model') ?? '');
  if (!(file instanceof Blob) || !model) {
    return sendJson(res, 400, { error: { message: "'file' and 'model' are required", type: 'invalid_request_error' } });
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = fakeTranscript(bytes, (file as File).name);
  const seconds = Math.round((bytes.length / 16_000) * 100) / 100; // as if 16 kB per second
  const usage = model.startsWith('whisper')
    ? { type: 'duration', seconds }
    : { type: 'tokens', input_tokens: bytes.length, output_tokens: 9, total_tokens: bytes.length + 9 };
  const format = String(form.get('response_format') ?? 'json');
  if (format === 'text') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text);
    return;
  }
  if (format === 'verbose_json') {
    const segment = { id: 0, seek: 0, start: 0, end: seconds, text, tokens: [1, 2, 3], temperature: 0 };
    const language = String(form.get('language') ?? 'english');
    return sendJson(res, 200, { task: 'transcribe', language, duration: seconds, text, segments: [segment], usage });
  }
  sendJson(res, 200, { text, usage });
};

/**
 * Answers `text` the way the request asked: one completion, or (with `stream: true`) an SSE
 * stream of it word by word, ending in `data: [DONE]`.
 */
export function answerText(req: RecordedRequest, res: ServerResponse, text: string): void {
  const body = req.json as { model?: string; stream?: boolean } | undefined;
  const model = body?.model ?? 'unknown';
  if (!body?.stream) {
    sendJson(res, 200, completionBody(model, text));
    return;
  }
  openSse(res);
  writeSse(res, chunkBody(model, { role: 'assistant', content: '' }));
  for (const word of text.split(/(?<= )/)) writeSse(res, chunkBody(model, { content: word }));
  writeSse(res, chunkBody(model, {}, 'stop'));
  writeSse(res, '[DONE]');
  res.end();
}

/**
 * The default behaviour: a reply built from the last user message, streamed word by word;
 * `/embeddings` answers with fakeEmbedding vectors, `/audio/transcriptions` with a fakeTranscript.
 */
export const defaultOpenAIHandler: Handler = (req, res, raw) => {
  const path = req.url.split('?')[0]!;
  if (path.endsWith('/embeddings')) return embeddingsHandler(req, res, raw);
  if (path.endsWith('/audio/transcriptions')) return transcriptionsHandler(req, res, raw);
  const body = req.json as { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
  const model = body?.model ?? 'unknown';
  const reply = `Upstream says: ${lastUserText(req)}`;
  if (!body?.stream) return sendJson(res, 200, completionBody(model, reply));
  openSse(res);
  writeSse(res, chunkBody(model, { role: 'assistant', content: '' }));
  for (const word of reply.split(/(?<= )/)) writeSse(res, chunkBody(model, { content: word }));
  writeSse(res, chunkBody(model, {}, 'stop'));
  if (body.stream_options?.include_usage) {
    writeSse(res, { ...chunkBody(model, {}), choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
  }
  writeSse(res, '[DONE]');
  res.end();
};

export function startOpenAIUpstream(handler: Handler = defaultOpenAIHandler): Promise<LocalServer> {
  return startLocalServer(handler);
}
