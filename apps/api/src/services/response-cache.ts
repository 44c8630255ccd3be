import { createHash } from 'node:crypto';
import type { CacheConfig } from '@switchboard/config';
import { type Logger, throttledWarning } from '@switchboard/logger';
import type { ResponseCacheStore } from '@switchboard/state';
import type { Context } from 'koa';
import { z } from 'zod';
import type { ApiClient } from '../middleware/api-key-auth.js';
import { canonicalJson } from './canonical-json.js';

/** What a cache entry holds: a JSON answer, or the events of a stream to replay. */
const entrySchema = z.union([
  z.strictObject({ body: z.record(z.string(), z.unknown()) }),
  z.strictObject({ events: z.array(z.record(z.string(), z.unknown())) }),
]);

export type CachedAnswer = z.infer<typeof entrySchema>;

export interface CacheLookup {
  key: string;
  hit: CachedAnswer | null;
}

export interface Cacheable {
  /** Which endpoint: entries of one never answer another. */
  kind: 'chat' | 'responses' | 'embeddings';
  /** The parsed request, with `model` already the name it resolves to. */
  request: Record<string, unknown>;
  stream: boolean;
  /** `null` when the request sets none; embeddings pass 0 (the same input gives the same vectors). */
  temperature: number | null | undefined;
}

/**
 * The opt-in response cache: exact match on the normalised request (parsed, defaults applied,
 * keys sorted, `model` resolved) plus the caller's tenant — the API key's client id, so keys
 * never share answers unless `cache.shareAcrossKeys` says so. Only requests the policy allows
 * are looked up (`temperature: 0`, or all); the answer says `x-switchboard-cache: hit|miss`.
 * Redis trouble is a miss, never a failed request.
 */
export class ResponseCache {
  private readonly warn: (err: unknown) => void;

  constructor(
    private readonly store: ResponseCacheStore,
    private readonly config: CacheConfig,
    logger: Logger,
  ) {
    this.warn = throttledWarning(logger, 'response cache unavailable: answering without it');
  }

  /** null when the request is not cached at all; otherwise its key and the entry, if there is one. */
  async lookup(ctx: Context, item: Cacheable): Promise<CacheLookup | null> {
    if (this.config.policy === 'temperature-zero' && item.temperature !== 0) return null;
    const tenant = this.config.shareAcrossKeys ? '*' : ((ctx.state.client as ApiClient | undefined)?.id ?? 'anonymous');
    const key = createHash('sha256')
      .update(canonicalJson({ v: 1, kind: item.kind, tenant, stream: item.stream, request: item.request }))
      .digest('hex');
    const hit = await this.read(key);
    ctx.set('x-switchboard-cache', hit ? 'hit' : 'miss');
    ctx.state.log = { ...(ctx.state.log as object | undefined), cache: hit ? 'hit' : 'miss' };
    return { key, hit };
  }

  /** Stores an answer in the background (never delaying the response); too large ones are skipped. */
  save(lookup: CacheLookup, answer: { body: object } | { events: readonly object[] }): void {
    const json = JSON.stringify(answer);
    if (Buffer.byteLength(json) > this.config.maxEntryBytes) return;
    this.store.set(lookup.key, json, this.config.ttlSeconds).catch((err) => this.warn(err));
  }

  private async read(key: string): Promise<CachedAnswer | null> {
    let json: string | null;
    try {
      json = await this.store.get(key);
    } catch (err) {
      this.warn(err);
      return null;
    }
    if (json === null) return null;
    try {
      const parsed = entrySchema.safeParse(JSON.parse(json));
      return parsed.success ? parsed.data : null;
    } catch {
      return null; // an entry written by something else: a miss, overwritten by this answer
    }
  }
}
