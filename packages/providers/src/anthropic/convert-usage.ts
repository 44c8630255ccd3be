import type { Usage } from '@switchboard/protocol';
import { makeUsage } from '../usage.js';
import type { AnthropicUsage } from './messages-api-schema.js';

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens`; OpenAI's `prompt_tokens`
 * includes them, so they are added back to report the whole prompt.
 */
export function promptTokens(usage: AnthropicUsage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

/** Anthropic usage → OpenAI usage; `prompt` overrides the prompt count (streams learn it earlier). */
export function convertUsage(usage: AnthropicUsage, prompt = promptTokens(usage)): Usage {
  return makeUsage(prompt, usage.output_tokens ?? 0);
}
