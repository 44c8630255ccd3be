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
  const body: Record<string, unknown> = { ...request, model: upstreamModel, stream };
  if (!stream)
    delete body.stream_options; // OpenAI rejects stream_options without stream
  else if (streamUsage) body.stream_options = { ...request.stream_options, include_usage: true };
  for (const key of Object.keys(body)) if (body[key] === null) delete body[key];
  return body;
}

export function fromUpstreamResponse(provider: string, json: unknown): ProviderCompletion {
  const parsed = readUpstreamCompletion(json);
  if (!parsed) {
    throw upstreamError(`Upstream '${provider}' returned a response that is not a chat completion.`, 'upstream_invalid_response');
  }
  const { choices, usage, id: _id, object: _object, created: _created, model: _model, ...extra } = parsed;
  return {
    choices: choices.map(
      (choice, i): ChatCompletionChoice => ({
        ...choice,
        index: choice.index ?? i,
        message: { ...choice.message, role: 'assistant', content: choice.message.content ?? null },
        finish_reason: choice.finish_reason ?? 'stop',
      }),
    ),
    usage: usage ?? null,
    extra,
  };
}

/**
 * One upstream SSE event → a chunk, `'done'` for `[DONE]`, or null for events to skip.
 * An `error` object inside the stream (OpenAI, vLLM and OpenRouter send these) becomes a 502.
 */
export function fromUpstreamEvent(provider: string, event: SseEvent): ProviderChunk | 'done' | null {
  const data = event.data.trim();
  if (data === '[DONE]') return 'done';
  if (data === '') return null;
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
  return {
    choices: parsed.choices.map(
      (choice, i): ChunkChoice => ({
        ...choice,
        index: choice.index ?? i,
        delta: stripNulls(choice.delta ?? {}),
        finish_reason: choice.finish_reason ?? null,
      }),
    ),
    usage: parsed.usage ?? null,
  };
}

function stripNulls(delta: Record<string, unknown>): ChunkChoice['delta'] {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(delta)) if (value !== null && value !== undefined) out[key] = value;
  return out as ChunkChoice['delta'];
}
