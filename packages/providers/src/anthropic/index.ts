import type { ProviderConfig } from '@switchboard/config';
import type { ChatCompletionRequest } from '@switchboard/protocol';
import { type EventReader, HttpProvider, type ProviderHooks } from '../http-provider.js';
import type { ProviderCompletion } from '../provider.js';
import { anthropicHeaders, messagesUrl } from './api.js';
import { formatToolName } from './convert-format.js';
import { toAnthropicRequest } from './convert-request.js';
import { fromAnthropicResponse } from './convert-response.js';
import { createStreamState, fromAnthropicEvent } from './convert-stream.js';

/**
 * Anthropic's Messages API behind the OpenAI chat-completions shape. The translation lives in
 * the pure `convert-*` modules; the HTTP is HttpProvider's.
 */
export class AnthropicProvider extends HttpProvider {
  private readonly defaultMaxTokens: number;
  private readonly url: string;

  constructor(name: string, config: ProviderConfig, hooks: ProviderHooks = {}) {
    super(name, config, anthropicHeaders(config), undefined, hooks);
    this.defaultMaxTokens = config.defaultMaxTokens;
    this.url = messagesUrl(config);
  }

  protected chatUrl(_upstreamModel: string): string {
    return this.url;
  }

  protected requestBody(request: ChatCompletionRequest, upstreamModel: string, stream: boolean): unknown {
    return toAnthropicRequest(request, upstreamModel, { stream, defaultMaxTokens: this.defaultMaxTokens });
  }

  protected parseResponse(json: unknown, request: ChatCompletionRequest): ProviderCompletion {
    return fromAnthropicResponse(this.name, json, formatToolName(request));
  }

  protected eventReader(request: ChatCompletionRequest): EventReader {
    const state = createStreamState(formatToolName(request));
    return (event) => fromAnthropicEvent(this.name, event, state);
  }
}
