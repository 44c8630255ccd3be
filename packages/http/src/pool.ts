import { Agent } from 'undici';

export interface PoolOptions {
  /** Connections per origin. */
  connections: number;
  /** Time allowed to open a connection. @defaultValue 10000 */
  connectTimeoutMs?: number;
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
  });
}

/**
 * Closes a pool: requests in flight get `graceMs` to finish, then whatever is left is destroyed,
 * so a shutdown never waits on a slow upstream or platform. @defaultValue graceMs 1000
 */
export async function closePool(agent: Agent, graceMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = agent.close().then(() => true);
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const inTime = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (!inTime) await agent.destroy();
}
