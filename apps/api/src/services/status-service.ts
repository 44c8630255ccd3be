import { INBOUND_QUEUE, type QueueCounts, queueCounts } from '@switchboard/queue';
import type { WorkerInfo } from '@switchboard/state';
import type { AppDeps } from '../deps.js';

export interface StatusRecord {
  status: 'ok' | 'degraded';
  version: string;
  uptime_seconds: number;
  started_at: string;
  connected_channels: number;
  channels: unknown[];
  /** Users (/v1 `user`) and conversations active within the window; null while Redis is away. */
  active_sessions: number | null;
  queues: Record<string, QueueCounts>;
  workers: WorkerInfo[];
  redis: { connected: boolean };
}

/**
 * The operator's view. Everything but uptime is read from Redis, so every API process reports
 * the same figures; with Redis away the record still answers, marked `degraded`.
 */
export async function readStatus(deps: AppDeps): Promise<StatusRecord> {
  const base = {
    version: deps.version,
    uptime_seconds: Math.floor((Date.now() - deps.startedAt.getTime()) / 1000),
    started_at: deps.startedAt.toISOString(),
    connected_channels: 0,
    channels: [],
  };
  try {
    if (deps.redis.status !== 'ready') throw new Error('redis not ready');
    const [active, counts, workers] = await withTimeout(
      Promise.all([deps.sessions.count(), queueCounts(deps.inboundQueue), deps.workers.list()]),
      2_000,
    );
    return {
      status: 'ok',
      ...base,
      active_sessions: active,
      queues: { [INBOUND_QUEUE]: counts },
      workers,
      redis: { connected: true },
    };
  } catch {
    return { status: 'degraded', ...base, active_sessions: null, queues: {}, workers: [], redis: { connected: false } };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
