import type { CancelSignal } from '@switchboard/http';
import type {
  ChatCompletionChoice,
  ChatCompletionRequest,
  ChunkChoice,
  EmbeddingsRequest,
  TranscriptionRequest,
  TranscriptionUsage,
  Usage,
} from '@switchboard/protocol';

/** What every call to an upstream carries. */
export interface CallContext {
  /**
   * Aborted when the client hangs up: the upstream request is cancelled at once. An AbortSignal,
   * or the API's lighter `CancelSource` (`toAbortSignal` where a library needs an AbortSignal).
   */
  signal: CancelSignal;
  requestId: string;
  /**
   * At most this many retries on this call, below the provider's own `maxRetries`: the gateway
   * sets 0 when another deployment of a route can take the request instead.
   */
  maxRetries?: number;
  /**
   * Hears what a call used, once, from the gateway: after a completion or embeddings, and when a
   * stream ends however it ends (the upstream's count, else the tokenizer's). `model` is the id of
   * the deployment that served it.
   */
  onUsage?: (usage: Usage, model: string) => void;
}

/** A provider's answer before the gateway stamps `id`, `created` and `model` on it. */
export interface ProviderCompletion {
  choices: ChatCompletionChoice[];
  usage?: Usage | null;
  /**
   * The upstream's top-level fields (system_fingerprint…), passed on: the gateway's answer is one
   * spread of them with `id`, `object`, `created`, `model`, `choices` and `usage` its own.
   */
  extra?: Record<string, unknown>;
}

export interface ProviderChunk {
  choices: ChunkChoice[];
  usage?: Usage | null;
  /**
   * `choices` exactly as JSON.stringify writes them, when the provider has that text at hand (the
   * OpenAI reader's common chunk): a chunk passing them on as they are is written with it.
   */
  choicesJson?: string;
}

/** One vector per input, in input order, as floats. */
export interface ProviderEmbeddings {
  vectors: number[][];
  /** The upstream's count of input tokens, when it sent one. */
  promptTokens?: number | null;
}

/**
 * Audio to transcribe: the file as a Blob the provider may read more than once (a retry sends it
 * again: the API's is `fs.openAsBlob` of its upload, read from disk each time), its name (upstreams
 * guess the format from the extension), and the form's text fields.
 */
export interface TranscriptionInput {
  file: Blob;
  filename: string;
  fields: TranscriptionRequest;
}

/** The upstream's transcript: the JSON it sent (`json`, `verbose_json`), or the bare text (`text`). */
export type ProviderTranscription =
  | { format: 'json'; body: Record<string, unknown> & { text: string }; usage?: TranscriptionUsage | undefined }
  | { format: 'text'; text: string };

export interface Provider {
  /** The `<provider>` part of model ids; also `owned_by`. */
  readonly name: string;
  readonly models: readonly string[];
  /** Models served by `embed`; empty for providers without embeddings. */
  readonly embeddingModels: readonly string[];
  /** Models served by `transcribe`; empty for providers without speech-to-text. */
  readonly audioModels: readonly string[];
  complete(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderCompletion>;
  /**
   * Resolves once the upstream has accepted the request (status 200 and headers received), so
   * that failures before the first byte still become a proper HTTP error for the client. The
   * chunks come in batches: those one network read brought, together (never an empty batch).
   */
  stream(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk[]>>;
  embed?(request: EmbeddingsRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderEmbeddings>;
  transcribe?(input: TranscriptionInput, upstreamModel: string, ctx: CallContext): Promise<ProviderTranscription>;
  close(): Promise<void>;
}
