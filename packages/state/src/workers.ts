import { z } from 'zod';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';

const workerInfoSchema = z.object({
  id: z.string(),
  pid: z.number(),
  host: z.string(),
  concurrency: z.number(),
  started_at: z.string(),
  last_heartbeat: z.string(),
});

export type WorkerInfo = z.infer<typeof workerInfoSchema>;

/** How often a worker writes its heartbeat. */
export const WORKER_HEARTBEAT_MS = 5_000;

/**
 * Worker heartbeats in one hash (id → JSON). A worker is listed while its last heartbeat is
 * younger than `staleAfterMs`; stale entries are removed by whoever reads them.
 */
export class WorkerRegistry {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly staleAfterMs = 15_000,
  ) {}

  async beat(info: Omit<WorkerInfo, 'last_heartbeat'>, now = new Date()): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.workers, info.id, JSON.stringify({ ...info, last_heartbeat: now.toISOString() }))
      .set(this.keys.workersLastBeat, now.getTime())
      .exec();
  }

  /**
   * How long ago any worker last beat, in ms; null when none ever did (under this prefix). Kept
   * apart from the list, which forgets a worker after `staleAfterMs` or on its clean exit.
   */
  async sinceLastBeat(now = Date.now()): Promise<number | null> {
    const last = Number(await this.redis.get(this.keys.workersLastBeat));
    return last > 0 ? Math.max(0, now - last) : null;
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

/** A heartbeat as stored; anything unreadable (another version, a stray write) counts as stale. */
function parseInfo(json: string): WorkerInfo | null {
  try {
    const parsed = workerInfoSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
