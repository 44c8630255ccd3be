/** What is known of one deployment's health. */
export interface DeploymentHealth {
  /** How long it is still left alone, in ms; 0 when it may be used. */
  coolingForMs: number;
  /** The last failure that put it in cooldown, and when (Unix ms). */
  lastError: string | null;
  lastErrorAt: number | null;
}

/**
 * Where cooldowns live. The gateway takes one so that every process sharing it (API and worker
 * processes on one Redis: @switchboard/state's RedisCooldownStore) leaves a failing deployment
 * alone together; the providers package itself knows nothing of Redis.
 */
export interface CooldownStore {
  /** Every deployment with a recorded state, by id. */
  read(): Promise<Map<string, DeploymentHealth>>;
  /** Leaves `id` alone for `ms` (a longer cooldown already running is kept), recording `error`. */
  coolDown(id: string, ms: number, error: string): Promise<void>;
  /** Ends `id`'s cooldown (it answered again); its last error is kept. */
  recover(id: string): Promise<void>;
}

/** One process's own cooldowns: the default when no shared store is given, and for unit tests. */
export class MemoryCooldownStore implements CooldownStore {
  private readonly entries = new Map<string, { until: number; lastError: string | null; lastErrorAt: number | null }>();

  constructor(private readonly now: () => number = Date.now) {}

  async read(): Promise<Map<string, DeploymentHealth>> {
    const now = this.now();
    const out = new Map<string, DeploymentHealth>();
    for (const [id, e] of this.entries) {
      out.set(id, { coolingForMs: Math.max(0, e.until - now), lastError: e.lastError, lastErrorAt: e.lastErrorAt });
    }
    return out;
  }

  async coolDown(id: string, ms: number, error: string): Promise<void> {
    const now = this.now();
    const until = Math.max(this.entries.get(id)?.until ?? 0, now + ms);
    this.entries.set(id, { until, lastError: error, lastErrorAt: now });
  }

  async recover(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry) entry.until = 0;
  }
}
