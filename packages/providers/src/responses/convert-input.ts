import {
  type ChatMessage,
  type ContentPart,
  invalidRequest,
  type ResponsesContentPart,
  type ResponsesRequest,
} from '@switchboard/protocol';

/**
 * Responses `instructions` + `input` → chat messages. `instructions` is the first system
 * message; a string input is one user message; message items keep their role; function_call
 * items join the assistant turn before them as `tool_calls` (chat completions has calls on the
 * assistant message); function_call_output items become `tool` messages. An earlier answer's
 * `mcp_call` items become such a call and its result; `mcp_list_tools` items are skipped.
 */
export function toChatMessages(request: ResponsesRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') {
    messages.push({ role: 'user', content: request.input });
    return messages;
  }
  const addCall = (id: string, name: string, args: string) => {
    const call = { id, type: 'function', function: { name, arguments: args } };
    const last = messages.at(-1);
    if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  };
  request.input.forEach((item, i) => {
    if (item.type === 'mcp_list_tools') return; // the tools are offered again from the request's mcp tools
    if (item.type === 'mcp_call') {
      // Under the function name the model was offered (packages/tools functionName), and its result.
      addCall(item.id, `${item.server_label}__${item.name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64), item.arguments);
      messages.push({ role: 'tool', tool_call_id: item.id, content: item.output ?? `Error: ${item.error ?? 'no output'}` });
    } else if (item.type === 'function_call') {
      addCall(item.call_id, item.name, item.arguments);
    } else if (item.type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : textOnly(item.output, `input[${i}].output`);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: output });
    } else {
      messages.push({ role: item.role, content: toChatContent(item.content, `input[${i}].content`) });
    }
  });
  return messages;
}

/** Content parts → chat content: one string when it is all text (every server reads that), else parts. */
function toChatContent(content: string | ResponsesContentPart[], param: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  const parts = content.map((part, j): ContentPart => {
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text };
    if (part.type === 'refusal') return { type: 'text', text: part.refusal };
    if (!part.image_url) {
      throw invalidRequest('Images are taken by image_url here (file ids need stored files).', `${param}[${j}].image_url`);
    }
    return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
  });
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  return parts;
}

/** A function call's output as text: tool messages carry text only. */
function textOnly(content: ResponsesContentPart[], param: string): string {
  return content
    .map((part, j) => {
      if (part.type === 'input_text' || part.type === 'output_text') return part.text;
      throw invalidRequest('A function_call_output holds text only here.', `${param}[${j}].type`);
    })
    .join('');
}
