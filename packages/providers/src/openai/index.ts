import type { ProviderConfig } from '@switchboard/config';
import type { ChatCompletionRequest } from '@switchboard/protocol';
import { type EventReader, HttpProvider } from '../http-provider.js';
import type { ProviderCompletion } from '../provider.js';
import type { ProviderLog } from '../upstream-pool.js';
import { chatCompletionsUrl, openaiHeaders } from './api.js';
import { fromUpstreamEvent, fromUpstreamResponse, toUpstreamRequest } from './chat-complete.js';

/** Any OpenAI-compatible server: the request passes through, re-targeted at the upstream model. */
export class OpenAIProvider extends HttpProvider {
  constructor(name: string, config: ProviderConfig, log?: ProviderLog) {
    super(name, config, chatCompletionsUrl(config), openaiHeaders(config), log);
  }

  protected requestBody(request: ChatCompletionRequest, upstreamModel: string, stream: boolean): unknown {
    return toUpstreamRequest(request, upstreamModel, stream);
  }

  protected parseResponse(json: unknown): ProviderCompletion {
    return fromUpstreamResponse(this.name, json);
  }

  protected eventReader(): EventReader {
    return (event) => fromUpstreamEvent(this.name, event);
  }
}
