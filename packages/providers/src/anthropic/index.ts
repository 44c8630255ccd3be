import type { ProviderConfig } from '@switchboard/config';
import { type ChatCompletionRequest, upstreamError } from '@switchboard/protocol';
import type { CallContext, Provider, ProviderChunk, ProviderCompletion } from '../provider.js';
import { parseSse } from '../sse-parser.js';
import { createPool, postJson, readText, transportError, type UpstreamTarget } from '../upstream-http.js';
import { anthropicHeaders, messagesUrl } from './api.js';
import { toAnthropicRequest } from './convert-request.js';
import { fromAnthropicResponse } from './convert-response.js';
import { createStreamState, fromAnthropicEvent } from './convert-stream.js';

/**
 * Anthropic's Messages API behind the OpenAI chat-completions shape, over one keep-alive pool.
 * The translation lives in the pure `convert-*` modules; this class only does the HTTP.
 */
export class AnthropicProvider implements Provider {
  readonly models: readonly string[];
  private readonly pool = createPool();
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly defaultMaxTokens: number;
  private readonly target: UpstreamTarget;

  constructor(
    readonly name: string,
    config: ProviderConfig,
  ) {
    this.models = config.models;
    this.url = messagesUrl(config);
    this.headers = anthropicHeaders(config);
    this.defaultMaxTokens = config.defaultMaxTokens;
    this.target = {
      name,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      secrets: config.apiKey ? [config.apiKey] : [],
    };
  }

  async complete(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderCompletion> {
    const response = await this.post(request, upstreamModel, false, ctx);
    let json: unknown;
    try {
      json = JSON.parse(await readText(response.body));
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw upstreamError(`Upstream '${this.name}' returned a body that is not JSON.`, 'upstream_invalid_response');
      }
      throw transportError(this.target, err);
    }
    return fromAnthropicResponse(this.name, json);
  }

  async stream(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk>> {
    const response = await this.post(request, upstreamModel, true, ctx);
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.includes('text/event-stream')) {
      // dump() rather than destroy(): it drains a small body so the connection can be reused,
      // and unlike destroy() it leaves no 'aborted' error event without a listener.
      await response.body.dump().catch(() => {});
      throw upstreamError(`Upstream '${this.name}' did not answer with an event stream.`, 'upstream_invalid_response');
    }
    return this.readStream(response.body);
  }

  private async *readStream(body: AsyncIterable<Uint8Array> & { destroy(): void }): AsyncGenerator<ProviderChunk> {
    const state = createStreamState();
    let done = false;
    try {
      // Read on past message_stop to the end of the body, so the connection goes back to the pool.
      for await (const event of parseSse(body)) {
        if (done) continue;
        const chunk = fromAnthropicEvent(this.name, event, state);
        if (chunk === 'done') done = true;
        else if (chunk) yield chunk;
      }
    } catch (err) {
      throw transportError(this.target, err);
    } finally {
      if (!done) body.destroy();
    }
    if (!done) throw upstreamError(`Upstream '${this.name}' ended the stream before it was complete.`, 'upstream_stream_broken');
  }

  private post(request: ChatCompletionRequest, upstreamModel: string, stream: boolean, ctx: CallContext) {
    const body = toAnthropicRequest(request, upstreamModel, { stream, defaultMaxTokens: this.defaultMaxTokens });
    return postJson(this.target, { dispatcher: this.pool, url: this.url, headers: this.headers, body, signal: ctx.signal });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
