import { type ChatMessage, type EmbeddingsRequest, messageText, type Usage } from '@switchboard/protocol';
import { countTokens } from 'gpt-tokenizer';

/**
 * Token counts for when an upstream reports none, with the o200k_base tokenizer (GPT-4o's)
 * and OpenAI's chat framing: 3 tokens per message plus 3 to prime the reply.
 */
export function countText(text: string): number {
  return text ? countTokens(text) : 0;
}

export function countPromptTokens(messages: readonly ChatMessage[]): number {
  let total = 3;
  for (const message of messages) {
    total += 3 + countText(messageText(message.content)) + (message.name ? countText(message.name) + 1 : 0);
  }
  return total;
}

/** Input tokens of an embeddings request: strings counted, token arrays as they are. */
export function countEmbeddingInput(input: EmbeddingsRequest['input']): number {
  if (typeof input === 'string') return countText(input);
  let total = 0;
  for (const item of input) total += typeof item === 'number' ? 1 : typeof item === 'string' ? countText(item) : item.length;
  return total;
}

export function makeUsage(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** Loads the tokenizer's tables at start-up rather than on the first request. */
export function warmTokenizer(): void {
  countText('warm up');
}
