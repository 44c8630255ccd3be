import { hostname } from 'node:os';
import { WORKER_HEARTBEAT_MS, type WorkerRegistry } from '@switchboard/state';

export interface Heartbeat {
  id: string;
  stop(): Promise<void>;
}

/** Writes this worker's heartbeat now and every `intervalMs`; a failed beat is retried next tick. */
export function startHeartbeat(workers: WorkerRegistry, concurrency: number, intervalMs = WORKER_HEARTBEAT_MS): Heartbeat {
  const id = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const info = { id, pid: process.pid, host: hostname(), concurrency, started_at: new Date().toISOString() };
  const beat = () => workers.beat(info).catch(() => {});
  void beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return {
    id,
    async stop() {
      clearInterval(timer);
      await workers.remove(id).catch(() => {});
    },
  };
}
