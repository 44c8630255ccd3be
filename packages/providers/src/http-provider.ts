import type { ProviderConfig } from '@switchboard/config';
import { type BodyQueue, SseDecoder, type SseEvent } from '@switchboard/http';
import { type ChatCompletionRequest, upstreamError } from '@switchboard/protocol';
import type { FormData } from 'undici';
import type { CallContext, Provider, ProviderChunk, ProviderCompletion } from './provider.js';
import { postForJson, postFormForText, postForStream, streamError, type UpstreamTarget } from './upstream-http.js';
import { type ProviderLog, UpstreamPool } from './upstream-pool.js';

/** Who hears what a provider does: the pool's warnings, each retry (metrics). */
export interface ProviderHooks {
  log?: ProviderLog;
  onRetry?: (provider: string) => void;
}

/** Turns one upstream SSE event into a chunk, `'done'` at the end of the answer, or null to skip. */
export type EventReader = (event: SseEvent) => ProviderChunk | 'done' | null;

/**
 * What every HTTP upstream shares: one keep-alive pool, retries and error mapping (postJson),
 * JSON answers, and SSE streams read to the end so the connection returns to the pool. A
 * provider supplies only its wire format: the URL, the request body, the response, the stream events.
 */
export abstract class HttpProvider implements Provider {
  readonly models: readonly string[];
  readonly embeddingModels: readonly string[];
  readonly audioModels: readonly string[];
  private readonly pool: UpstreamPool;
  protected readonly target: UpstreamTarget;

  constructor(
    readonly name: string,
    config: ProviderConfig,
    private readonly headers: Record<string, string>,
    mapError?: UpstreamTarget['mapError'],
    hooks: ProviderHooks = {},
  ) {
    this.models = config.models;
    this.embeddingModels = config.embeddingModels;
    this.audioModels = config.audioModels;
    this.pool = new UpstreamPool(name, config.maxConnections, hooks.log);
    this.target = {
      name,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      secrets: config.apiKey ? [config.apiKey] : [],
      ...(mapError ? { mapError } : {}),
      ...(hooks.onRetry ? { onRetry: () => hooks.onRetry?.(name) } : {}),
    };
  }

  /** Where chat requests for `upstreamModel` go. */
  protected abstract chatUrl(upstreamModel: string): string;
  protected abstract requestBody(request: ChatCompletionRequest, upstreamModel: string, stream: boolean): unknown;
  protected abstract parseResponse(json: unknown, request: ChatCompletionRequest): ProviderCompletion;
  /** A reader for one stream of `request` (it may keep state across events). */
  protected abstract eventReader(request: ChatCompletionRequest): EventReader;

  async complete(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<ProviderCompletion> {
    const json = await this.postForJson(this.chatUrl(upstreamModel), this.requestBody(request, upstreamModel, false), ctx);
    return this.parseResponse(json, request);
  }

  async stream(request: ChatCompletionRequest, upstreamModel: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk[]>> {
    const body = await postForStream(
      this.targetFor(ctx),
      this.call(this.chatUrl(upstreamModel), this.requestBody(request, upstreamModel, true), ctx),
    );
    return this.readStream(body, this.eventReader(request));
  }

  /** POSTs `body` to `url` and reads the answer as JSON (502 when it is not). */
  protected postForJson(url: string, body: unknown, ctx: CallContext): Promise<unknown> {
    return postForJson(this.targetFor(ctx), this.call(url, body, ctx));
  }

  /** POSTs a multipart form (built anew for each attempt) and reads the 2xx answer as text, as `postForJson` does JSON. */
  protected postMultipart(url: string, form: () => FormData, ctx: CallContext): Promise<string> {
    return postFormForText(this.targetFor(ctx), { pool: this.pool, url, headers: this.headers, form, signal: ctx.signal });
  }

  /**
   * The chunks of an SSE answer, those of each network read together, in one generator from the
   * body to the chunks (a generator per stage, or a yield per chunk, would cost every read and
   * every event promise hops of their own). Each read is taken from the `BodyQueue` undici's parser
   * feeds (a promise only when it has to wait, under the silence watch). Reads on past the end
   * event to the end of the body, so the connection goes back to the pool.
   */
  private async *readStream(body: BodyQueue, read: EventReader): AsyncGenerator<ProviderChunk[]> {
    const decoder = new SseDecoder();
    let done = false;
    let ended = false;
    try {
      while (!ended) {
        const taken = body.next();
        const piece = taken instanceof Promise ? await taken : taken;
        ended = piece === null;
        const chunks: ProviderChunk[] = [];
        let failure: { error: unknown } | undefined;
        for (const event of piece === null ? decoder.end() : decoder.push(piece)) {
          if (done) break;
          let chunk: ReturnType<EventReader>;
          try {
            chunk = read(event);
          } catch (error) {
            failure = { error }; // after the chunks before it: the client gets those first, as it would event by event
            break;
          }
          if (chunk === 'done') done = true;
          else if (chunk) chunks.push(chunk);
        }
        if (chunks.length) yield chunks;
        if (failure) throw failure.error;
      }
    } catch (err) {
      throw streamError(this.target, err);
    } finally {
      body.stop(); // stopped early: the connection is closed, not reused
    }
    if (!done) throw upstreamError(`Upstream '${this.name}' ended the stream before it was complete.`, 'upstream_stream_broken');
  }

  private call(url: string, body: unknown, ctx: CallContext) {
    return { pool: this.pool, url, headers: this.headers, body, signal: ctx.signal };
  }

  /** This call's target: fewer retries when the gateway has another deployment to try. */
  private targetFor(ctx: CallContext): UpstreamTarget {
    return ctx.maxRetries !== undefined && ctx.maxRetries < this.target.maxRetries
      ? { ...this.target, maxRetries: ctx.maxRetries }
      : this.target;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
