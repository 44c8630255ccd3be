import type { Redis } from 'ioredis';
import type { StateKeys } from './keys.js';

export interface WorkerInfo {
  id: string;
  pid: number;
  host: string;
  concurrency: number;
  started_at: string;
  last_heartbeat: string;
}

/**
 * Worker heartbeats in one hash (id → JSON). A worker is listed while its last heartbeat is
 * younger than `staleAfterMs`; stale entries are removed by whoever reads them.
 */
export class WorkerRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly staleAfterMs = 15_000,
  ) {}

  async beat(info: Omit<WorkerInfo, 'last_heartbeat'>, now = new Date()): Promise<void> {
    await this.redis.hset(this.keys.workers, info.id, JSON.stringify({ ...info, last_heartbeat: now.toISOString() }));
  }

  async remove(id: string): Promise<void> {
    await this.redis.hdel(this.keys.workers, id);
  }

  async list(now = Date.now()): Promise<WorkerInfo[]> {
    const all = await this.redis.hgetall(this.keys.workers);
    const live: WorkerInfo[] = [];
    const stale: string[] = [];
    for (const [id, json] of Object.entries(all)) {
      const info = parseInfo(json);
      if (info && now - Date.parse(info.last_heartbeat) <= this.staleAfterMs) live.push(info);
      else stale.push(id);
    }
    if (stale.length) await this.redis.hdel(this.keys.workers, ...stale);
    return live.sort((a, b) => a.id.localeCompare(b.id));
  }
}

function parseInfo(json: string): WorkerInfo | null {
  try {
    const value = JSON.parse(json) as Partial<WorkerInfo>;
    return typeof value.id === 'string' && typeof value.last_heartbeat === 'string' ? (value as WorkerInfo) : null;
  } catch {
    return null;
  }
}
