import { Counter, Gauge } from 'prom-client';
import type { Metrics } from './metrics.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** What the Redis-backed gauges show, read once per scrape. */
export interface SharedSnapshot {
  queue: Record<(typeof QUEUE_STATES)[number], number>;
  /** Hook name → whether its channel counts as connected. */
  channels: Map<string, boolean>;
  activeSessions: number;
  workerProcesses: number;
}

export interface SharedGaugesOptions {
  /** Reads the snapshot; may be slow or fail while Redis is away. */
  read: () => Promise<SharedSnapshot>;
  /** The longest a scrape waits for it; past that the gauges are left out of this scrape. @defaultValue 1000 */
  timeoutMs?: number;
}

/**
 * Adds the gauges that live in Redis (queue counts, channel connected, active sessions, worker
 * processes) to the registry, read at scrape time and never on a request: one read per scrape
 * (the registry collects every metric at once, so they share it), bounded by `timeoutMs`. A
 * scrape that cannot read them leaves them out rather than showing stale values, and counts it.
 */
export function registerSharedGauges(metrics: Metrics, options: SharedGaugesOptions): void {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const registers = [metrics.registry];
  const failures = new Counter({
    name: 'switchboard_metrics_redis_read_failures_total',
    help: 'Scrapes whose Redis-backed gauges could not be read in time (those gauges are left out of them)',
    registers,
  });
  let pending: Promise<SharedSnapshot | null> | undefined;
  const snapshot = () => {
    pending ??= bounded(options.read(), timeoutMs).then((read) => {
      if (!read) failures.inc();
      setImmediate(() => {
        pending = undefined; // the next scrape reads again
      });
      return read;
    });
    return pending;
  };
  /** A gauge refilled from the snapshot at each scrape. */
  const shared = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (gauge: Gauge<L>, read: SharedSnapshot) => void,
  ) =>
    new Gauge<L>({
      name,
      help: `${help} (read from Redis at scrape time)`,
      labelNames,
      registers,
      async collect() {
        const read = await snapshot();
        this.reset();
        if (read) fill(this, read);
      },
    });

  shared('switchboard_queue_jobs', 'Hook-message jobs by state: waiting, active, delayed, failed', ['state'], (gauge, read) => {
    for (const state of QUEUE_STATES) gauge.set({ state }, read.queue[state]);
  });
  shared(
    'switchboard_channel_connected',
    '1 when the hook’s platform recently accepted our credentials or a delivery, else 0',
    ['hook'],
    (gauge, read) => {
      for (const [hook, connected] of read.channels) gauge.set({ hook }, connected ? 1 : 0);
    },
  );
  shared(
    'switchboard_active_sessions',
    'Conversations and /v1 users active within sessions.activeWindowSeconds',
    [],
    (gauge, read) => gauge.set(read.activeSessions),
  );
  shared('switchboard_worker_processes', 'Worker processes with a fresh heartbeat', [], (gauge, read) =>
    gauge.set(read.workerProcesses),
  );
}

/** The value, or null when it fails or takes longer than `ms`. */
async function bounded<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}
