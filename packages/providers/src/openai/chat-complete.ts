import type { SseEvent } from '@switchboard/http';
import {
  type ChatCompletionChoice,
  type ChatCompletionRequest,
  type ChunkChoice,
  readUpstreamChunk,
  readUpstreamCompletion,
  upstreamError,
} from '@switchboard/protocol';
import type { ProviderChunk, ProviderCompletion } from '../provider.js';

/**
 * The upstream body: the client's request as sent (unknown parameters included), re-targeted. A
 * stream asks for the usage chunk (`streamUsage`) so usage and budgets get the upstream's count;
 * the client sees that chunk only if it asked for it (normalize-stream.ts).
 */
export function toUpstreamRequest(request: ChatCompletionRequest, upstreamModel: string, stream: boolean, streamUsage = false) {
  // One copy, null parameters left out as it is made: `delete` on it would turn it into a
  // dictionary, slower to write out as JSON.
  const body: Record<string, unknown> = {};
  for (const key in request) {
    const value = (request as Record<string, unknown>)[key];
    if (value !== null) body[key] = value;
  }
  body.model = upstreamModel;
  body.stream = stream;
  if (!stream) {
    if (body.stream_options !== undefined) body.stream_options = undefined; // OpenAI rejects stream_options without stream; JSON leaves undefined out
  } else if (streamUsage) body.stream_options = { ...request.stream_options, include_usage: true };
  return body;
}

/**
 * The upstream's answer as the gateway needs it. The parsed body is this call's own (fresh from
 * JSON.parse, or zod's copy), so it is handed on whole as `extra` — the gateway's one spread of
 * it replaces `id`, `object`, `created`, `model`, `choices` and `usage` — and a choice already in
 * its final form (an index, the assistant's message with its content, a finish reason: every
 * choice of a usual answer) is kept as it is, not copied.
 */
export function fromUpstreamResponse(provider: string, json: unknown): ProviderCompletion {
  const parsed = readUpstreamCompletion(json);
  if (!parsed) {
    throw upstreamError(`Upstream '${provider}' returned a response that is not a chat completion.`, 'upstream_invalid_response');
  }
  const { choices } = parsed;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i]!;
    const { message } = choice;
    if (
      choice.index === undefined ||
      typeof choice.finish_reason !== 'string' ||
      message.role !== 'assistant' ||
      message.content === undefined
    ) {
      choices[i] = {
        ...choice,
        index: choice.index ?? i,
        message: { ...message, role: 'assistant', content: message.content ?? null },
        finish_reason: choice.finish_reason ?? 'stop',
      };
    }
  }
  return { choices: choices as ChatCompletionChoice[], usage: parsed.usage ?? null, extra: parsed };
}

/**
 * One upstream SSE event → a chunk, `'done'` for `[DONE]`, or null for events to skip.
 * An `error` object inside the stream (OpenAI, vLLM and OpenRouter send these) becomes a 502.
 * The parsed event is this call's own, so a choice already in its final form (an index, a
 * `finish_reason` key, a delta without null fields) is passed on as it is, not copied.
 */
export function fromUpstreamEvent(provider: string, event: SseEvent): ProviderChunk | 'done' | null {
  const data = event.data.trim();
  if (data === '[DONE]') return 'done';
  if (data === '') return null;
  // A common chunk ends `]}` or `null}`, the usage chunk `}}`: each text tried by the match that can take it.
  return (data.endsWith('}}') ? readUsageChunk(data) : readPlainChunk(data)) ?? readChunk(provider, data);
}

/** A JSON string as JSON.stringify writes it: no escape it would not make, no lone surrogate. */
const CANONICAL_STRING = String.raw`"(?:[^"\\\x00-\x1f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff]|\\["\\bfnrt])*"`;
/** A top-level field the reading ignores: a plain key (not `choices`, `usage` or `error`), a simple value. */
const IGNORED_FIELD = String.raw`"(?!(?:choices|usage|error)")[A-Za-z_]+":(?:"[^"\\\x00-\x1f]*"|-?(?:0|[1-9]\d*)|null|true|false),`;
/**
 * The common chunk of an OpenAI stream, written without spaces: ignored fields (`id`, `model`…),
 * then `choices` last, holding one choice `{"index":…,"delta":{…},"logprobs":null,"finish_reason":…}`
 * whose delta is empty, `{"content":…}` or `{"role":"assistant","content":…}`, the last maybe
 * with `"refusal":null` (the first chunk's), which the reading drops; then maybe `"usage":null`,
 * which OpenAI puts on every chunk but the last when the stream asks for usage (`stream_options.
 * include_usage`, as `streamUsage` does by default; the API reference's ChatCompletionStreamOptions:
 * "All other chunks will also include a usage field, but with a null value"). Groups: the `choices` text
 * up to the refusal and after it, the index, the role, the content, the refusal, the finish reason.
 */
const PLAIN_CHUNK = new RegExp(
  String.raw`^\{(?:${IGNORED_FIELD})*"choices":(\[\{"index":(0|[1-9]\d{0,5}),"delta":\{(?:("role":"assistant",)?"content":(${CANONICAL_STRING}))?)(,"refusal":null)?(\},"logprobs":null,"finish_reason":(null|"[a-z_]+")\}\])(?:,"usage":null)?\}$`,
);

/**
 * The common chunk (PLAIN_CHUNK) read without JSON.parse: the chunk `readChunk` returns for it,
 * built from the groups, with `choicesJson`, the event's own `choices` text — what JSON.stringify
 * writes for those choices, since every string in it is written as JSON.stringify writes it.
 * Null for anything else, which `readChunk` reads. (JSON.parse and the checks cost an event
 * several times the match.)
 */
export function readPlainChunk(data: string): ProviderChunk | null {
  const match = PLAIN_CHUNK.exec(data);
  if (match === null) return null;
  const [, before, index, role, content, refusal, after, finish] = match;
  let delta: ChunkChoice['delta'];
  if (content === undefined) {
    if (refusal !== undefined) return null; // `{,"refusal":null}` is not JSON
    delta = {};
  } else {
    const text = content.includes('\\') ? (JSON.parse(content) as string) : content.slice(1, -1);
    delta = role === undefined ? { content: text } : { role: 'assistant', content: text };
  }
  const choice = { index: Number(index), delta, logprobs: null, finish_reason: finish === 'null' ? null : finish!.slice(1, -1) };
  return { choices: [choice as ChunkChoice], usage: null, choicesJson: `${before}${after}` };
}

/**
 * The usage chunk that ends a stream asking for usage: ignored fields (as PLAIN_CHUNK's), then
 * `"choices":[]` and `"usage":` with the rest of the event but its closing brace. Group: that rest.
 */
const USAGE_CHUNK = new RegExp(String.raw`^\{(?:${IGNORED_FIELD})*"choices":\[\],"usage":(\{[^]*\})\}$`);

/**
 * The usage chunk (USAGE_CHUNK) with only its usage parsed: the chunk `readChunk` returns for it,
 * since the fields before it are ones the reading drops and the chunk's shape check looks at
 * `choices` and `usage` alone. Null for anything else, and for a rest that is not one JSON value
 * (`{…},"x":1`): `readChunk` reads those.
 */
export function readUsageChunk(data: string): ProviderChunk | null {
  const match = USAGE_CHUNK.exec(data);
  if (match === null) return null;
  let usage: unknown;
  try {
    usage = JSON.parse(match[1]!);
  } catch {
    return null;
  }
  const parsed = readUpstreamChunk({ choices: [], usage });
  return parsed ? { choices: [], usage: parsed.usage ?? null } : null;
}

/** Any other event: parsed, an `error` object thrown, the shape checked. */
function readChunk(provider: string, data: string): ProviderChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw upstreamError(`Upstream '${provider}' sent a stream event that is not JSON.`, 'upstream_invalid_response');
  }
  if (json && typeof json === 'object' && 'error' in json) {
    const message = (json as { error?: { message?: unknown } }).error?.message;
    throw upstreamError(
      `Upstream '${provider}' failed mid-stream${typeof message === 'string' ? `: ${message.slice(0, 4000)}` : '.'}`,
    );
  }
  const parsed = readUpstreamChunk(json);
  if (!parsed) {
    throw upstreamError(`Upstream '${provider}' sent a stream chunk of the wrong shape.`, 'upstream_invalid_response');
  }
  const { choices } = parsed;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i]!;
    const { delta } = choice;
    if (choice.index === undefined || choice.finish_reason === undefined || delta === undefined || hasNullish(delta)) {
      choices[i] = {
        ...choice,
        index: choice.index ?? i,
        delta: stripNulls(delta ?? {}),
        finish_reason: choice.finish_reason ?? null,
      };
    }
  }
  return { choices: choices as ChunkChoice[], usage: parsed.usage ?? null };
}

function hasNullish(delta: Record<string, unknown>): boolean {
  for (const key in delta) if (delta[key] === null || delta[key] === undefined) return true;
  return false;
}

function stripNulls(delta: Record<string, unknown>): ChunkChoice['delta'] {
  const out: Record<string, unknown> = {};
  for (const key in delta) {
    const value = delta[key];
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out as ChunkChoice['delta'];
}
