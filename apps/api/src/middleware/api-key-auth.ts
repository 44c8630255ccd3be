import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyConfig } from '@switchboard/config';
import { unauthorized } from '@switchboard/protocol';
import type { BudgetLimits } from '@switchboard/state';
import type { Context } from 'koa';

export interface ApiClient {
  /** A short, non-reversible id for logs and rate-limit keys: never the key. */
  id: string;
  requestsPerMinute?: number;
  /** This key's `budget` (`tokensPerDay`, `costPerMonth`), if it has one. */
  budget?: BudgetLimits;
  /** The MCP tools this key's `/v1/responses` requests may name (`apiKeys[].tools`). */
  tools?: readonly string[];
}

interface KnownKey extends ApiClient {
  digest: Buffer;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The guard of routes whose policy says `apiKey` (route-policy.ts; the app's policy step calls it):
 * with API keys configured, a request needs `Authorization: Bearer <key>`: 401
 * `invalid_api_key` otherwise, thrown; the key's client goes to `ctx.state.client`. Keys are compared as SHA-256 digests with timingSafeEqual, every
 * key every time, so neither the match nor a key's length shows in the timing. Without keys,
 * anything (the placeholder keys of client examples included) is let through.
 */
export function apiKeyAuth(keys: ApiKeyConfig[]): (ctx: Context) => void {
  const known: KnownKey[] = keys.map((entry) => {
    const key = typeof entry === 'string' ? entry : entry.key;
    const d = digest(key);
    const name = typeof entry === 'string' ? undefined : entry.name;
    return {
      digest: d,
      id: name ?? `key-${d.toString('hex').slice(0, 8)}`,
      ...(typeof entry !== 'string' && entry.requestsPerMinute ? { requestsPerMinute: entry.requestsPerMinute } : {}),
      ...(typeof entry !== 'string' && entry.budget ? { budget: entry.budget } : {}),
      ...(typeof entry !== 'string' && entry.tools ? { tools: entry.tools } : {}),
    };
  });
  // Not a middleware: a check with nothing to wait for costs the request no step and no promise.
  return (ctx) => {
    if (known.length === 0 || ctx.method === 'OPTIONS') return;
    const header = ctx.get('authorization');
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!given) throw unauthorized('Missing API key: send Authorization: Bearer <key>.');
    const d = digest(given);
    let match: KnownKey | undefined;
    for (const key of known) if (timingSafeEqual(d, key.digest) && !match) match = key;
    if (!match) throw unauthorized('Incorrect API key provided.');
    const { id, requestsPerMinute, budget, tools } = match;
    ctx.state.client = { id, requestsPerMinute, budget, tools } satisfies ApiClient;
  };
}
