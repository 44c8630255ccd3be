import type { ChatCompletionChunk, ChatCompletionRequest, ChunkChoice, Usage } from '@switchboard/protocol';
import type { ProviderChunk } from './provider.js';
import { countPromptTokens, countText, makeUsage } from './usage.js';

/**
 * A chunk as `normalizeStream` makes it: its fields are what JSON.stringify writes (a private
 * field is not, nor is it copied by a spread), and `#json` holds that text when the chunk was
 * made from choices passed on as they came with their text (`ProviderChunk.choicesJson`).
 */
class StreamChunk {
  [extra: string]: unknown;
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  readonly #json: string | undefined;

  constructor(head: { id: string; model: string; created: number }, choices: ChunkChoice[], json?: string) {
    this.id = head.id;
    this.object = 'chat.completion.chunk';
    this.created = head.created;
    this.model = head.model;
    this.choices = choices;
    this.#json = json;
  }

  /** What JSON.stringify writes for a chunk of `head` before its choices' text: the fields above, in their order. */
  static jsonHead(head: { id: string; model: string; created: number }): string {
    return `{"id":${JSON.stringify(head.id)},"object":"chat.completion.chunk","created":${JSON.stringify(head.created)},"model":${JSON.stringify(head.model)},"choices":`;
  }

  static json(chunk: object): string | undefined {
    return #json in chunk ? (chunk as StreamChunk).#json : undefined;
  }
}

/**
 * A chunk as JSON: JSON.stringify's text, taken from the upstream's when `normalizeStream` made
 * the chunk from choices it passed on as they came with their text (the same bytes, without
 * parsing and writing the event again). A chunk is not changed once made; a copy (a spread) of
 * it is written by JSON.stringify.
 */
export function chunkJson(chunk: object): string {
  return StreamChunk.json(chunk) ?? JSON.stringify(chunk);
}

/**
 * Makes any provider's chunks a well-formed OpenAI stream: the first delta of each choice
 * carries `role`, every choice ends with a `finish_reason`, and with
 * `stream_options.include_usage` a last chunk holds `choices: []` and the usage. `onEnd` hears
 * the usage once the stream is over, however it ends (complete, failed, or the reader gone):
 * the upstream's count, else the prompt and the text so far counted. The chunks of one upstream
 * batch (one network read) come out together, as one array: a yield per chunk would cost each
 * chunk a promise hop here and another in every reader.
 */
export async function* normalizeStream(
  upstream: AsyncIterable<ProviderChunk[]>,
  request: ChatCompletionRequest,
  head: { id: string; model: string; created: number },
  onEnd?: (usage: Usage) => void,
): AsyncGenerator<ChatCompletionChunk[]> {
  const started = new Set<number>();
  const finished = new Set<number>();
  const wantsUsage = request.stream_options?.include_usage === true;
  const keepText = wantsUsage || onEnd !== undefined;
  let usage: Usage | null = null;
  let text = ''; // kept only to count usage the upstream did not report
  const finalUsage = () => usage ?? makeUsage(countPromptTokens(request.messages), countText(text));
  const chunk = (choices: ChunkChoice[], json?: string): ChatCompletionChunk => new StreamChunk(head, choices, json);
  // A chunk's text before its choices, made on first use: not a StreamChunk made and written out per stream.
  let jsonHead: string | undefined;
  const withHead = (choicesJson: string) => {
    jsonHead ??= StreamChunk.jsonHead(head);
    return `${jsonHead}${choicesJson}}`;
  };

  // One generator, not a wrapper around an inner one: `yield*` would cost every chunk a second hop.
  try {
    for await (const pieces of upstream) {
      const out: ChatCompletionChunk[] = [];
      for (const piece of pieces) {
        if (piece.usage) usage = piece.usage;
        const n = piece.choices.length;
        if (n === 0) continue;
        const choices: ChunkChoice[] = [];
        let asTheyCame = true;
        for (let i = 0; i < n; i++) {
          const choice = piece.choices[i]!;
          const { delta } = choice;
          if (keepText && typeof delta.content === 'string') text += delta.content;
          if (choice.finish_reason) finished.add(choice.index);
          if (started.has(choice.index)) choices.push(choice);
          else {
            started.add(choice.index);
            // A first delta that names its role already (an OpenAI stream's first chunk) is passed on as it is.
            if (delta.role === undefined) {
              choices.push({ ...choice, delta: { role: 'assistant', ...delta } });
              asTheyCame = false;
            } else choices.push(choice);
          }
        }
        out.push(chunk(choices, asTheyCame && piece.choicesJson !== undefined ? withHead(piece.choicesJson) : undefined));
      }
      if (out.length) yield out;
    }

    const last: ChatCompletionChunk[] = [];
    const open = [...(started.size ? started : [0])].filter((index) => !finished.has(index));
    if (open.length) {
      last.push(
        chunk(
          open.map((index) => ({
            index,
            delta: started.has(index) ? {} : { role: 'assistant' as const, content: '' },
            finish_reason: 'stop',
          })),
        ),
      );
    }
    if (wantsUsage) last.push({ ...chunk([]), usage: finalUsage() });
    if (last.length) yield last;
  } finally {
    onEnd?.(finalUsage());
  }
}
