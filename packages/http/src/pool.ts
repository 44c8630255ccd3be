import { Agent, type Dispatcher, Pool } from 'undici';

export interface PoolOptions {
  /** Connections per origin. */
  connections: number;
  /** Time allowed to open a connection. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /**
   * Told when a request had to wait for a free connection (every connection of its origin was
   * busy). Checked only when the pool says it is full, so the common case costs nothing.
   */
  onQueued?: () => void;
}

/**
 * A keep-alive connection pool. Each provider and each channel owns one, so a slow upstream or
 * platform cannot take the connections another needs.
 */
export function createPool(options: PoolOptions): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: options.connections,
    pipelining: 1,
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    ...(options.onQueued ? { factory: watchedPool(options.onQueued) } : {}),
  });
}

/**
 * Pools that tell `onQueued` when a request waits. `dispatch` returns false once the pool is full
 * (this request took the last free connection, or was queued); only then are the pool's stats,
 * which add up over every connection, read to see whether a request is actually queued.
 */
function watchedPool(onQueued: () => void) {
  return (origin: string | URL, opts: object): Dispatcher => {
    const pool = new Pool(origin, opts as Pool.Options);
    const dispatch = pool.dispatch.bind(pool);
    pool.dispatch = (request, handler) => {
      const free = dispatch(request, handler);
      if (!free && pool.stats.queued > 0) onQueued();
      return free;
    };
    return pool;
  };
}

/**
 * Closes a pool: requests in flight get `graceMs` to finish, then whatever is left is destroyed,
 * so a shutdown never waits on a slow upstream or platform. Safe to repeat. @defaultValue graceMs 1000
 */
export async function closePool(agent: Agent, graceMs = 1_000): Promise<void> {
  if (agent.destroyed) return; // closed before: undici refuses a second close (ClientDestroyedError)
  let timer: NodeJS.Timeout | undefined;
  const closed = agent.close().then(() => true);
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const inTime = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (!inTime) await agent.destroy();
}
