import { closePool, createPool } from '@switchboard/http';
import type { Agent } from 'undici';

/** Where a provider reports what an operator should know; the apps pass their logger. */
export interface ProviderLog {
  warn(message: string, meta: Record<string, unknown>): unknown;
}

/** Where a request goes: what undici's `dispatch` takes in place of a URL. */
export interface UpstreamAddress {
  origin: string;
  /** Path and query. */
  path: string;
}

const MAX_ADDRESSES = 256;

/**
 * A provider's keep-alive pool: at most `maxConnections` connections (`providers.<name>.maxConnections`).
 * A stream holds its connection until it ends, so past that many concurrent calls requests wait
 * for a free connection; the first time that happens it is logged, once per process, because
 * it means the setting is too small for the load.
 */
export class UpstreamPool {
  readonly agent: Agent;
  #warned = false;
  /** Each URL this provider calls, split once: a provider calls a handful, from its config. */
  readonly #addresses = new Map<string, UpstreamAddress>();

  constructor(
    private readonly provider: string,
    private readonly maxConnections: number,
    private readonly log?: ProviderLog,
  ) {
    this.agent = createPool({ connections: maxConnections, ...(log ? { onQueued: () => this.#queued() } : {}) });
  }

  /**
   * `url` as undici's dispatcher takes it. undici's top-level `request(url)` parses the URL again
   * on every call, about a fifth of the client's CPU per call (`node bench/upstream-client.mjs`).
   */
  address(url: string): UpstreamAddress {
    let address = this.#addresses.get(url);
    if (!address) {
      const parsed = new URL(url);
      address = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.#addresses.size >= MAX_ADDRESSES) this.#addresses.clear(); // never grows without bound
      this.#addresses.set(url, address);
    }
    return address;
  }

  #queued(): void {
    if (this.#warned || !this.log) return;
    this.#warned = true;
    this.log.warn('upstream connections exhausted: requests wait for a free one', {
      provider: this.provider,
      max_connections: this.maxConnections,
      hint: `raise providers.${this.provider}.maxConnections`,
    });
  }

  /** Calls in flight get a moment to finish; then they are cut (a shutdown must not wait on an upstream). */
  close(): Promise<void> {
    return closePool(this.agent);
  }
}
