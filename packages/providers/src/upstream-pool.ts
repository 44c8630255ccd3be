import { closePool, createPool } from '@switchboard/http';
import type { Agent } from 'undici';

/** Where a provider reports what an operator should know; the apps pass their logger. */
export interface ProviderLog {
  warn(message: string, meta: Record<string, unknown>): unknown;
}

/**
 * A provider's keep-alive pool: at most `maxConnections` connections (`providers.<name>.maxConnections`).
 * A stream holds its connection until it ends, so past that many concurrent calls requests wait
 * for a free connection; the first time that happens it is logged, once per process, because
 * it means the setting is too small for the load.
 */
export class UpstreamPool {
  readonly agent: Agent;
  #warned = false;

  constructor(
    private readonly provider: string,
    private readonly maxConnections: number,
    private readonly log?: ProviderLog,
  ) {
    this.agent = createPool({ connections: maxConnections, ...(log ? { onQueued: () => this.#queued() } : {}) });
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
