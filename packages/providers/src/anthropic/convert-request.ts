import type { ChatCompletionRequest } from '@switchboard/protocol';
import { convertFormat } from './convert-format.js';
import { type AnthropicMessage, convertMessages } from './convert-messages.js';
import { type AnthropicTool, type AnthropicToolChoice, convertTools } from './convert-tools.js';

/** The Messages API request body this gateway sends. */
export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream: boolean;
  metadata?: { user_id: string };
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
}

export interface ConvertRequestOptions {
  stream: boolean;
  /** Sent when the request names no limit: Anthropic, unlike OpenAI, requires `max_tokens`. */
  defaultMaxTokens: number;
}

/**
 * An OpenAI chat request → a Messages API body. The body is built from the parameters both
 * APIs share; OpenAI-only ones (n, seed, logprobs, penalties, logit_bias, a json_object
 * response_format, stream_options, unknown extras) are dropped, so one choice is always returned.
 * A json_schema response_format becomes a forced tool (convert-format.ts).
 */
export function toAnthropicRequest(
  request: ChatCompletionRequest,
  upstreamModel: string,
  options: ConvertRequestOptions,
): AnthropicRequest {
  const { system, messages } = convertMessages(request.messages);
  const body: AnthropicRequest = {
    model: upstreamModel,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? options.defaultMaxTokens,
    messages,
    stream: options.stream,
  };
  if (system) body.system = system;
  // Anthropic's temperature runs 0–1 where OpenAI's runs 0–2; above 1 is the most random it allows.
  if (request.temperature != null) body.temperature = Math.min(request.temperature, 1);
  // Claude 4.5 and later reject temperature and top_p together; temperature is the one kept.
  else if (request.top_p != null) body.top_p = request.top_p;
  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stop.length) body.stop_sequences = stop;
  if (request.user) body.metadata = { user_id: request.user };
  return { ...body, ...convertTools(request), ...convertFormat(request) };
}
