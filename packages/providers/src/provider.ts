import type { ChatCompletionChoice, ChatCompletionRequest, ChunkChoice, Usage } from '@switchboard/protocol';

/** What every call to an upstream carries. */
export interface CallContext {
  /** Aborted when the client hangs up: the upstream request is cancelled at once. */
  signal: AbortSignal;
  requestId: string;
}

/** A provider's answer before the gateway stamps `id`, `created` and `model` on it. */
export interface ProviderCompletion {
  choices: ChatCompletionChoice[];
  usage?: Usage | null;
  /** Extra top-level fields the upstream sent (system_fingerprint…), passed on. */
  extra?: Record<string, unknown>;
}

export interface ProviderChunk {
  choices: ChunkChoice[];
  usage?: Usage | null;
}

export interface Provider {
  /** The `<provider>` part of model ids; also `owned_by`. */
  readonly name: string;
  readonly models: readonly string[];
  complete(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderCompletion>;
  /**
   * Resolves once the upstream has accepted the request (status 200 and headers received), so
   * that failures before the first byte still become a proper HTTP error for the client.
   */
  stream(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk>>;
  close(): Promise<void>;
}
