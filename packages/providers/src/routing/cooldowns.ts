import type { CooldownConfig } from '@switchboard/config';
import type { AppError } from '@switchboard/protocol';
import { type CooldownStore, type DeploymentHealth, MemoryCooldownStore } from './cooldown-store.js';

/**
 * The gateway's side of cooldowns: how long a failure keeps a deployment out, written to the
 * shared store and to this process's own memory, which answers when the shared store cannot
 * (Redis away): routing then goes on with what this process saw itself.
 */
export class Cooldowns {
  private readonly local = new MemoryCooldownStore();
  readonly store: CooldownStore;

  constructor(
    private readonly config: CooldownConfig,
    shared: CooldownStore | undefined,
    private readonly onStoreError: (err: unknown) => void,
  ) {
    this.store = shared ?? this.local;
  }

  async read(): Promise<Map<string, DeploymentHealth>> {
    if (this.store === this.local) return this.local.read();
    try {
      return await this.store.read();
    } catch (err) {
      this.onStoreError(err);
      return this.local.read();
    }
  }

  /** For the failure's Retry-After, else the configured time, at most `maxMs`; awaited, so the next request anywhere sees it. */
  async failed(id: string, err: AppError): Promise<void> {
    const ms = Math.min(err.retryAfterMs ?? this.config.defaultMs, this.config.maxMs);
    if (ms <= 0) return;
    const reason = `${err.status} ${err.code ?? err.type}: ${err.message}`.slice(0, 300);
    await this.local.coolDown(id, ms, reason);
    if (this.store !== this.local) await this.store.coolDown(id, ms, reason).catch(this.onStoreError);
  }

  async recovered(id: string): Promise<void> {
    await this.local.recover(id);
    if (this.store !== this.local) await this.store.recover(id).catch(this.onStoreError);
  }
}
