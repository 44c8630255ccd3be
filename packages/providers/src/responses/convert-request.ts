import { type ChatCompletionRequest, invalidRequest, type ResponsesRequest } from '@switchboard/protocol';
import { toChatMessages } from './convert-input.js';

/**
 * A Responses request → the chat completion request the gateway serves on every provider. What
 * needs responses stored between calls (`previous_response_id`, `store: true`, `conversation`,
 * stored prompts, `background`) is refused with a 400 naming it: this gateway keeps none.
 */
export function toChatRequest(request: ResponsesRequest, stream: boolean): ChatCompletionRequest {
  refuseStored(request);
  const chat: ChatCompletionRequest = { model: request.model, messages: toChatMessages(request) };
  // Usage comes at the end of the stream, for response.completed.
  if (stream) chat.stream_options = { include_usage: true };
  if (request.temperature != null) chat.temperature = request.temperature;
  if (request.top_p != null) chat.top_p = request.top_p;
  if (request.max_output_tokens != null) chat.max_completion_tokens = request.max_output_tokens;
  if (request.user != null) chat.user = request.user;
  if (request.parallel_tool_calls != null) chat.parallel_tool_calls = request.parallel_tool_calls;
  if (request.reasoning?.effort) chat.reasoning_effort = request.reasoning.effort;
  // `mcp` tools are not the upstream's: the API offers their tools as functions and runs them (apps/api responses-mcp).
  const functions = request.tools?.filter((tool) => tool.type === 'function') ?? [];
  if (functions.length) {
    chat.tools = functions.map(({ name, description, parameters, strict }) => ({
      type: 'function',
      function: {
        name,
        ...(description ? { description } : {}),
        ...(parameters ? { parameters } : {}),
        ...(strict != null ? { strict } : {}),
      },
    }));
  }
  const choice = request.tool_choice;
  if (choice != null)
    chat.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  const format = request.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    const { name, schema, description, strict } = format;
    chat.response_format = {
      type: 'json_schema',
      json_schema: { name, schema, ...(description ? { description } : {}), ...(strict != null ? { strict } : {}) },
    };
  }
  return chat;
}

function refuseStored(request: ResponsesRequest): void {
  const code = 'unsupported_parameter';
  const stateless = 'this gateway keeps no responses: send the whole conversation in `input`.';
  if (request.previous_response_id != null) {
    throw invalidRequest(`previous_response_id is not supported: ${stateless}`, 'previous_response_id', code);
  }
  if (request.store === true) throw invalidRequest(`store: true is not supported: ${stateless}`, 'store', code);
  if (request.background === true) throw invalidRequest('background responses are not supported here.', 'background', code);
  for (const param of ['conversation', 'prompt'] as const) {
    if (request[param] != null) throw invalidRequest(`${param} is not supported: ${stateless}`, param, code);
  }
}
