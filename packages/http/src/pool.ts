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
