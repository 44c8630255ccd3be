import type { ProviderConfig } from '@switchboard/config';
import type { ChatCompletionRequest, EmbeddingsRequest } from '@switchboard/protocol';
import { type EventReader, HttpProvider, type ProviderHooks } from '../http-provider.js';
import type {
  CallContext,
  ProviderCompletion,
  ProviderEmbeddings,
  ProviderTranscription,
  TranscriptionInput,
} from '../provider.js';
import type { UpstreamTarget } from '../upstream-http.js';
import { openaiHeaders, openaiUrl } from './api.js';
import { fromUpstreamEvent, fromUpstreamResponse, toUpstreamRequest } from './chat-complete.js';
import { fromUpstreamEmbeddings, inputCount, toUpstreamEmbeddings } from './embeddings.js';
import { fromUpstreamTranscription, toUpstreamForm } from './transcriptions.js';

/** Any OpenAI-compatible server: the request passes through, re-targeted at the upstream model. */
export class OpenAIProvider extends HttpProvider {
  constructor(
    name: string,
    protected readonly config: ProviderConfig,
    headers: Record<string, string> = openaiHeaders(config),
    mapError?: UpstreamTarget['mapError'],
    hooks: ProviderHooks = {},
  ) {
    super(name, config, headers, mapError, hooks);
    this.completionsUrl = openaiUrl(config, 'chat/completions');
  }

  /** Made once: the same string each call also keeps its hash for the pool's look-up by URL. */
  private readonly completionsUrl: string;

  protected chatUrl(_upstreamModel: string): string {
    return this.completionsUrl;
  }

  protected embeddingsUrl(_upstreamModel: string): string {
    return openaiUrl(this.config, 'embeddings');
  }

  protected requestBody(request: ChatCompletionRequest, upstreamModel: string, stream: boolean): unknown {
    return toUpstreamRequest(request, upstreamModel, stream, this.config.streamUsage);
  }

  protected parseResponse(json: unknown): ProviderCompletion {
    return fromUpstreamResponse(this.name, json);
  }

  protected eventReader(): EventReader {
    return (event) => fromUpstreamEvent(this.name, event);
  }

  async embed(request: EmbeddingsRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderEmbeddings> {
    const json = await this.postForJson(this.embeddingsUrl(upstreamModel), toUpstreamEmbeddings(request, upstreamModel), ctx);
    return fromUpstreamEmbeddings(this.name, json, inputCount(request.input));
  }

  /** The audio forwarded as multipart to `{baseUrl}/audio/transcriptions`, the file streamed from its Blob. */
  async transcribe(input: TranscriptionInput, upstreamModel: string, ctx: CallContext): Promise<ProviderTranscription> {
    const url = openaiUrl(this.config, 'audio/transcriptions');
    const text = await this.postMultipart(url, () => toUpstreamForm(input, upstreamModel), ctx);
    return fromUpstreamTranscription(this.name, input.fields.response_format, text);
  }
}
