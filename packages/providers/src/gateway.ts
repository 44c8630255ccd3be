import { ConfigError } from '@switchboard/config';
import {
  AppError,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChunkChoice,
  completionId,
  messageText,
  type Usage,
  unixSeconds,
} from '@switchboard/protocol';
import type { CallContext, ProviderChunk } from './provider.js';
import type { ModelRegistry, ResolvedModel } from './registry.js';
import { countPromptTokens, countText, makeUsage } from './usage.js';

export interface CompletionStream {
  id: string;
  model: string;
  chunks: AsyncIterable<ChatCompletionChunk>;
}

/**
 * The chat-completions service both apps use: resolves the model, calls its provider, and
 * stamps one `id`, `created` and `model` on the answer; usage is the upstream's, else counted.
 */
export class Gateway {
  private readonly chains = new Map<string, ResolvedModel[]>();

  /**
   * @param fallbacks `{ "<model id>": ["<model id>", …] }`: when a model still fails after its
   * retries (429, 5xx, unreachable, time-out), the next one in its chain serves the request.
   * Every id must be served, or this throws a `ConfigError` naming the entry at start-up.
   */
  constructor(
    readonly registry: ModelRegistry,
    fallbacks: Record<string, string[]> = {},
  ) {
    for (const [model, chain] of Object.entries(fallbacks)) {
      const first = configured(registry, model, `fallbacks.${model}`);
      this.chains.set(first.id, [first, ...chain.map((id, i) => configured(registry, id, `fallbacks.${model}[${i}]`))]);
    }
  }

  /** The model and its fallbacks, in order. */
  private candidates(model: string): ResolvedModel[] {
    const first = this.registry.resolve(model);
    return this.chains.get(first.id) ?? [first];
  }

  /** Runs `call` on each candidate until one succeeds; only failures a retry could cure move on. */
  private async withFallbacks<T>(model: string, ctx: CallContext, call: (target: ResolvedModel) => Promise<T>): Promise<T> {
    const candidates = this.candidates(model);
    for (let i = 0; ; i++) {
      const target = candidates[i]!;
      try {
        return await call(target);
      } catch (err) {
        const last = i === candidates.length - 1;
        if (last || ctx.signal.aborted || !(err instanceof AppError) || !err.isRetryable) throw err;
      }
    }
  }

  async complete(request: ChatCompletionRequest, ctx: CallContext): Promise<ChatCompletion> {
    const { target, answer } = await this.withFallbacks(request.model, ctx, async (target) => ({
      target,
      answer: await target.provider.complete(request, target.upstreamModel, ctx),
    }));
    const usage =
      answer.usage ??
      makeUsage(
        countPromptTokens(request.messages),
        answer.choices.reduce((sum, c) => sum + countText(messageText(c.message.content)), 0),
      );
    return {
      ...answer.extra,
      id: completionId(),
      object: 'chat.completion',
      created: unixSeconds(),
      model: target.id,
      choices: answer.choices,
      usage,
    };
  }

  /** Resolves once the upstream has accepted the request; chunks then flow as they arrive. */
  async stream(request: ChatCompletionRequest, ctx: CallContext): Promise<CompletionStream> {
    const { target, upstream } = await this.withFallbacks(request.model, ctx, async (target) => ({
      target,
      upstream: await target.provider.stream(request, target.upstreamModel, ctx),
    }));
    const id = completionId();
    return { id, model: target.id, chunks: normalizeStream(upstream, request, { id, model: target.id, created: unixSeconds() }) };
  }
}

/** A model the configuration names, or a `ConfigError` at `path` saying why it cannot be served. */
function configured(registry: ModelRegistry, model: string, path: string): ResolvedModel {
  try {
    return registry.resolve(model);
  } catch (err) {
    if (err instanceof AppError) throw new ConfigError(`${path}: ${err.message}`);
    throw err;
  }
}

/**
 * Makes any provider's chunks a well-formed OpenAI stream: the first delta of each choice
 * carries `role`, every choice ends with a `finish_reason`, and with
 * `stream_options.include_usage` a last chunk holds `choices: []` and the usage.
 */
async function* normalizeStream(
  upstream: AsyncIterable<ProviderChunk>,
  request: ChatCompletionRequest,
  head: { id: string; model: string; created: number },
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
  if (wantsUsage) {
    yield { ...chunk([]), usage: usage ?? makeUsage(countPromptTokens(request.messages), countText(text)) };
  }
}
