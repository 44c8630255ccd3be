import type { ProviderConfig } from '@switchboard/config';
import { type ChatCompletionRequest, upstreamError } from '@switchboard/protocol';
import type { CallContext, Provider, ProviderChunk, ProviderCompletion } from '../provider.js';
import { parseSse } from '../sse-parser.js';
import { createPool, postJson, readText, streamError, transportError, type UpstreamTarget } from '../upstream-http.js';
import { chatCompletionsUrl, openaiHeaders } from './api.js';
import { fromUpstreamEvent, fromUpstreamResponse, toUpstreamRequest } from './chat-complete.js';

/** Any OpenAI-compatible server, over one keep-alive pool. */
export class OpenAIProvider implements Provider {
  readonly models: readonly string[];
  private readonly pool = createPool();
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly target: UpstreamTarget;

  constructor(
    readonly name: string,
    config: ProviderConfig,
  ) {
    this.models = config.models;
    this.url = chatCompletionsUrl(config);
    this.headers = openaiHeaders(config);
    this.target = {
      name,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      secrets: config.apiKey ? [config.apiKey] : [],
    };
  }

  async complete(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderCompletion> {
    const response = await this.post(toUpstreamRequest(request, upstreamModel, false), ctx);
    let json: unknown;
    try {
      json = JSON.parse(await readText(response.body));
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw upstreamError(`Upstream '${this.name}' returned a body that is not JSON.`, 'upstream_invalid_response');
      }
      throw transportError(this.target, err);
    }
    return fromUpstreamResponse(this.name, json);
  }

  async stream(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk>> {
    const response = await this.post(toUpstreamRequest(request, upstreamModel, true), ctx);
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.includes('text/event-stream')) {
      await response.body.dump(); // destroy() here would raise an uncaught RequestAbortedError
      throw upstreamError(`Upstream '${this.name}' did not answer with an event stream.`, 'upstream_invalid_response');
    }
    return this.readStream(response.body);
  }

  private async *readStream(body: AsyncIterable<Uint8Array> & { destroy(): void }): AsyncGenerator<ProviderChunk> {
    let done = false;
    try {
      // Read on past [DONE] to the end of the body, so the connection goes back to the pool.
      for await (const event of parseSse(body)) {
        if (done) continue;
        const chunk = fromUpstreamEvent(this.name, event);
        if (chunk === 'done') done = true;
        else if (chunk) yield chunk;
      }
    } catch (err) {
      throw streamError(this.target, err);
    } finally {
      if (!done) body.destroy();
    }
    if (!done) throw upstreamError(`Upstream '${this.name}' ended the stream before it was complete.`, 'upstream_stream_broken');
  }

  private post(body: unknown, ctx: CallContext) {
    return postJson(this.target, { dispatcher: this.pool, url: this.url, headers: this.headers, body, signal: ctx.signal });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
