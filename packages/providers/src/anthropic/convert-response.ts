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
 * server tools) have no OpenAI equivalent and are left out. The input of `formatTool` (see
 * convert-format.ts) is the answer's text.
 */
export function fromAnthropicResponse(provider: string, json: unknown, formatTool?: string): ProviderCompletion {
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
  let formatted = false;
  for (const block of content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use' && block.name === formatTool) {
      // The forced tool of a json_schema response_format: its input is the answer.
      text += JSON.stringify(block.input ?? {});
      formatted = true;
    } else if (block.type === 'tool_use') {
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
    choices: [{ index: 0, message, finish_reason: formatted && !toolCalls.length ? 'stop' : mapFinishReason(stop_reason) }],
    usage: convertUsage(usage),
  };
}
