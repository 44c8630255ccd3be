import type { ChatCompletionChunk, ChatCompletionRequest, ChunkChoice, Usage } from '@switchboard/protocol';
import type { ProviderChunk } from './provider.js';
import { countPromptTokens, countText, makeUsage } from './usage.js';

/**
 * Makes any provider's chunks a well-formed OpenAI stream: the first delta of each choice
 * carries `role`, every choice ends with a `finish_reason`, and with
 * `stream_options.include_usage` a last chunk holds `choices: []` and the usage. `onUsage`
 * hears the usage at the end when it is known (reported, or counted for include_usage).
 */
export async function* normalizeStream(
  upstream: AsyncIterable<ProviderChunk>,
  request: ChatCompletionRequest,
  head: { id: string; model: string; created: number },
  onUsage?: (usage: Usage) => void,
): AsyncGenerator<ChatCompletionChunk> {
  const started = new Set<number>();
  const finished = new Set<number>();
  const wantsUsage = request.stream_options?.include_usage === true;
  let usage: Usage | null = null;
  let text = ''; // kept only to count usage the upstream did not report
  const chunk = (choices: ChunkChoice[]): ChatCompletionChunk => ({
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices,
  });

  for await (const piece of upstream) {
    if (piece.usage) usage = piece.usage;
    if (piece.choices.length === 0) continue;
    const choices = piece.choices.map((choice) => {
      if (wantsUsage && typeof choice.delta.content === 'string') text += choice.delta.content;
      if (choice.finish_reason) finished.add(choice.index);
      if (started.has(choice.index)) return choice;
      started.add(choice.index);
      return { ...choice, delta: { role: 'assistant' as const, ...choice.delta } };
    });
    yield chunk(choices);
  }

  const open = [...(started.size ? started : [0])].filter((index) => !finished.has(index));
  if (open.length) {
    yield chunk(
      open.map((index) => ({
        index,
        delta: started.has(index) ? {} : { role: 'assistant' as const, content: '' },
        finish_reason: 'stop',
      })),
    );
  }
  if (wantsUsage) usage ??= makeUsage(countPromptTokens(request.messages), countText(text));
  // Without include_usage, tokens are known only when the upstream reported them: counting
  // every streamed reply would put the tokenizer on the hot path.
  if (usage) onUsage?.(usage);
  if (wantsUsage && usage) yield { ...chunk([]), usage };
}
