import type { SseEvent } from '@switchboard/http';
import { upstreamError } from '@switchboard/protocol';
import type { ProviderChunk } from '../provider.js';
import { convertUsage, promptTokens } from './convert-usage.js';
import { mapFinishReason } from './map-finish-reason.js';
import { eventTypeSchema, STREAM_EVENT_TYPES, type StreamEvent, streamEventSchema } from './messages-api-schema.js';

/** What one stream remembers between events. */
export interface StreamState {
  /** From `message_start`: older API versions send prompt counts there and not in `message_delta`. */
  promptTokens: number;
  /** Content-block index → OpenAI `tool_calls` index, for the `tool_use` blocks seen so far. */
  toolCalls: Map<number, number>;
  /** The forced tool of a json_schema response_format, whose input streams as the text. */
  formatTool: string | undefined;
  /** Content-block indexes of that tool's blocks. */
  formatBlocks: Set<number>;
}

export function createStreamState(formatTool?: string): StreamState {
  return { promptTokens: 0, toolCalls: new Map(), formatTool, formatBlocks: new Set() };
}

/**
 * One Messages API stream event → an OpenAI-style chunk, `'done'` at `message_stop`, or null
 * for events with nothing to pass on (`ping`, block boundaries, thinking deltas, event types
 * added after this was written). An `error` event becomes a 502.
 */
export function fromAnthropicEvent(provider: string, event: SseEvent, state: StreamState): ProviderChunk | 'done' | null {
  const data = event.data.trim();
  if (data === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw upstreamError(`Upstream '${provider}' sent a stream event that is not JSON.`, 'upstream_invalid_response');
  }
  const head = eventTypeSchema.safeParse(json);
  if (head.success && !STREAM_EVENT_TYPES.has(head.data.type)) return null;
  const parsed = streamEventSchema.safeParse(json);
  if (!parsed.success) {
    throw upstreamError(`Upstream '${provider}' sent a stream event of the wrong shape.`, 'upstream_invalid_response');
  }
  return convertEvent(provider, parsed.data, state);
}

function convertEvent(provider: string, event: StreamEvent, state: StreamState): ProviderChunk | 'done' | null {
  switch (event.type) {
    case 'message_start':
      if (event.message.usage) state.promptTokens = promptTokens(event.message.usage);
      return null;
    case 'content_block_start': {
      const block = event.content_block;
      if (block.type !== 'tool_use') return null;
      if (block.name === state.formatTool) {
        state.formatBlocks.add(event.index);
        return null;
      }
      // Arguments follow as input_json_delta pieces; OpenAI opens a tool call with empty ones.
      const index = state.toolCalls.size;
      state.toolCalls.set(event.index, index);
      return delta({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] });
    }
    case 'content_block_delta': {
      const piece = event.delta;
      if (piece.type === 'text_delta') return delta({ content: piece.text });
      if (piece.type === 'other') return null;
      if (state.formatBlocks.has(event.index)) return delta({ content: piece.partial_json });
      const index = state.toolCalls.get(event.index);
      if (index === undefined) {
        throw upstreamError(`Upstream '${provider}' sent tool arguments outside a tool_use block.`, 'upstream_invalid_response');
      }
      return delta({ tool_calls: [{ index, function: { arguments: piece.partial_json } }] });
    }
    case 'message_delta': {
      const usage = event.usage ?? {};
      // Newer API versions repeat the prompt counts here; they are then the final word.
      const prompt = usage.input_tokens != null ? promptTokens(usage) : state.promptTokens;
      return {
        choices: [{ index: 0, delta: {}, finish_reason: finishReason(event.delta.stop_reason, state) }],
        usage: convertUsage(usage, prompt),
      };
    }
    case 'message_stop':
      return 'done';
    case 'error': {
      const message = event.error?.message;
      throw upstreamError(`Upstream '${provider}' failed mid-stream${message ? `: ${message.slice(0, 4000)}` : '.'}`);
    }
    default:
      // ping, content_block_stop
      return null;
  }
}

/** A stop for the forced format tool is the end of the answer, not a call for the client to make. */
function finishReason(stopReason: string | null | undefined, state: StreamState): string {
  if (stopReason === 'tool_use' && state.formatBlocks.size > 0 && state.toolCalls.size === 0) return 'stop';
  return mapFinishReason(stopReason);
}

function delta(content: ProviderChunk['choices'][number]['delta']): ProviderChunk {
  return { choices: [{ index: 0, delta: content, finish_reason: null }] };
}
