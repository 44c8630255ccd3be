import { type ChatMessage, type ContentPart, invalidRequest, messageText } from '@switchboard/protocol';
import { z } from 'zod';

/** The request-side content blocks this gateway sends. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  /** A plain string when the turn is only text, as most clients and logs expect to see it. */
  content: string | AnthropicBlock[];
}

const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  // Some clients send the URL bare rather than as `{ url }`.
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]),
});
const toolFunctionSchema = z.looseObject({ name: z.string().min(1), arguments: z.string().nullish() });
const argumentsSchema = z.record(z.string(), z.unknown());
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * OpenAI messages → Anthropic's `system` string and alternating `messages`.
 *
 * - `system` and `developer` messages, wherever they stand, are joined into `system`:
 *   the Messages API has no system turns.
 * - `tool` messages become user `tool_result` blocks, assistant `tool_calls` become
 *   `tool_use` blocks; the deprecated `function` role is sent as user text.
 * - Consecutive turns of one role are merged, since Anthropic requires user and assistant to
 *   alternate (a tool result followed by a user remark is one user turn).
 * - Content parts other than text and `image_url` (audio, files) are dropped.
 */
export function convertMessages(messages: readonly ChatMessage[]): { system?: string; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const turns: { role: 'user' | 'assistant'; blocks: AnthropicBlock[] }[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'system' || message.role === 'developer') {
      const text = messageText(message.content);
      if (text) system.push(text);
      return;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message, i);
    // An empty turn would be rejected ("content must be non-empty"), so it is left out.
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  });
  return {
    ...(system.length ? { system: system.join('\n\n') } : {}),
    messages: turns.map(({ role, blocks }) => ({ role, content: finishTurn(blocks) })),
  };
}

function toBlocks(message: ChatMessage, i: number): AnthropicBlock[] {
  if (message.role === 'tool') {
    if (!message.tool_call_id) throw invalidRequest('A tool message needs a tool_call_id.', `messages[${i}].tool_call_id`);
    return [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: messageText(message.content) }];
  }
  const blocks = contentBlocks(message.content, i);
  if (message.role === 'assistant')
    for (const [j, call] of (message.tool_calls ?? []).entries()) blocks.push(toolUse(call, i, j));
  return blocks;
}

function contentBlocks(content: ChatMessage['content'], i: number): AnthropicBlock[] {
  if (typeof content === 'string' || !content) return content ? [{ type: 'text', text: content }] : [];
  const blocks: AnthropicBlock[] = [];
  content.forEach((part, j) => {
    // The request schema guarantees a text part's `text` is a string; the check narrows the union.
    if (part.type === 'text' && typeof part.text === 'string') {
      // Adjacent text parts are one text, as messageText() reads them.
      const last = blocks.at(-1);
      if (last?.type === 'text') last.text += part.text;
      else if (part.text) blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      blocks.push(imageBlock(part, `messages[${i}].content[${j}]`));
    }
  });
  return blocks;
}

function imageBlock(part: ContentPart, param: string): AnthropicBlock {
  const parsed = imagePartSchema.safeParse(part);
  if (!parsed.success) throw invalidRequest('An image_url part needs a url.', `${param}.image_url`);
  const { image_url } = parsed.data;
  const url = typeof image_url === 'string' ? image_url : image_url.url;
  const data = DATA_URL.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1]!, data: data[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

function toolUse(call: NonNullable<ChatMessage['tool_calls']>[number], i: number, j: number): AnthropicBlock {
  const param = `messages[${i}].tool_calls[${j}].function`;
  const fn = toolFunctionSchema.safeParse(call.function);
  if (!fn.success) throw invalidRequest('A tool call needs a function name.', `${param}.name`);
  // OpenAI carries arguments as a JSON string; Anthropic wants the object itself.
  let input: unknown;
  try {
    input = JSON.parse(fn.data.arguments || '{}');
  } catch {
    input = undefined;
  }
  const args = argumentsSchema.safeParse(input);
  if (!args.success) throw invalidRequest('Tool call arguments must be a JSON object.', `${param}.arguments`);
  return { type: 'tool_use', id: call.id, name: fn.data.name, input: args.data };
}

/** Joins an all-text turn into one string; otherwise puts tool results first, as Anthropic requires. */
function finishTurn(blocks: AnthropicBlock[]): string | AnthropicBlock[] {
  if (blocks.every(isText)) return blocks.map((b) => b.text).join('\n\n');
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

function isText(block: AnthropicBlock): block is Extract<AnthropicBlock, { type: 'text' }> {
  return block.type === 'text';
}
