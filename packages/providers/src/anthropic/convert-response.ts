import { upstreamError } from '@switchboard/protocol';
import type { ProviderCompletion } from '../provider.js';
import { convertUsage } from './convert-usage.js';
import { mapFinishReason } from './map-finish-reason.js';
import { messageSchema } from './messages-api-schema.js';

/** An OpenAI tool call, as both the completion message and stream deltas carry it. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * A Messages API message → one OpenAI choice: text blocks concatenated, `tool_use` blocks as
 * `tool_calls` (arguments as a JSON string, as OpenAI sends them); other blocks (thinking,
 * server tools) have no OpenAI equivalent and are left out.
 */
export function fromAnthropicResponse(provider: string, json: unknown): ProviderCompletion {
  const parsed = messageSchema.safeParse(json);
  if (!parsed.success) {
    throw upstreamError(
      `Upstream '${provider}' returned a response that is not a Messages API message.`,
      'upstream_invalid_response',
    );
  }
  const { content, stop_reason, usage } = parsed.data;
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  // OpenAI sends `content: null` when the answer is only tool calls.
  const message = toolCalls.length
    ? { role: 'assistant' as const, content: text || null, tool_calls: toolCalls }
    : { role: 'assistant' as const, content: text };
  return {
    choices: [{ index: 0, message, finish_reason: mapFinishReason(stop_reason) }],
    usage: convertUsage(usage),
  };
}
