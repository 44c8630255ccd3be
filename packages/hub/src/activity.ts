import type { Hub, HubShards } from './hub.js';

/** One minute of finished hook messages, for the operator's charts. */
export interface MinuteActivity {
  /** The minute's start, ISO 8601. */
  minute: string;
  /** Messages answered and delivered in that minute. */
  completed: number;
  /** Messages that failed for good in that minute. */
  failed: number;
  /** From accepted to delivered, over the minute's completed messages; null without any. */
  latency_ms_avg: number | null;
  latency_ms_p95: number | null;
}

/** Finished jobs read per listing at most: the charts stay cheap however busy the hub is. */
const MAX_JOBS = 5_000;

/**
 * The last `minutes` minutes (the current one last), computed from the finished jobs BullMQ
 * keeps (its completed and failed sets are scored by finish time; a job hash holds when it was
 * accepted and finished): nothing is written on the hot path. Accurate while finished jobs are
 * kept (`retentionSeconds`), and up to `MAX_JOBS` jobs in the window.
 */
export async function readActivity(hubs: HubShards, minutes: number, now = Date.now()): Promise<MinuteActivity[]> {
  const first = Math.floor(now / 60_000) * 60_000 - (minutes - 1) * 60_000;
  const perShard = Math.ceil(MAX_JOBS / hubs.shards.length);
  const finished = await Promise.all(hubs.shards.map((hub) => finishedJobs(hub, first, perShard)));

  const buckets = Array.from({ length: minutes }, () => ({ completed: 0, failed: 0, latencies: [] as number[] }));
  const bucketOf = (finishedOn: number) => {
    const index = Math.floor((finishedOn - first) / 60_000);
    return index >= 0 && index < minutes ? buckets[index] : undefined;
  };
  for (const { completed, failed } of finished) {
    for (const [timestamp, finishedOn] of completed) {
      const bucket = bucketOf(finishedOn);
      if (!bucket) continue;
      bucket.completed++;
      const latency = finishedOn - timestamp;
      if (Number.isFinite(latency) && latency >= 0) bucket.latencies.push(latency);
    }
    for (const finishedOn of failed) {
      const bucket = bucketOf(finishedOn);
      if (bucket) bucket.failed++;
    }
  }
  return buckets.map((bucket, i) => {
    const sorted = bucket.latencies.sort((a, b) => a - b);
    return {
      minute: new Date(first + i * 60_000).toISOString(),
      completed: bucket.completed,
      failed: bucket.failed,
      latency_ms_avg: sorted.length ? Math.round(sorted.reduce((sum, v) => sum + v, 0) / sorted.length) : null,
      latency_ms_p95: sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]! : null,
    };
  });
}

/** One shard's jobs finished since `first`: [accepted, finished] of the completed, finished of the failed (ms). */
async function finishedJobs(hub: Hub, first: number, max: number): Promise<{ completed: [number, number][]; failed: number[] }> {
  const range = (set: string) =>
    hub.redis.zrevrangebyscore(hub.queue.toKey(set), '+inf', first, 'LIMIT', 0, max) as Promise<string[]>;
  const [completed, failed] = await Promise.all([range('completed'), range('failed')]);
  if (completed.length + failed.length === 0) return { completed: [], failed: [] };
  const pipeline = hub.redis.pipeline();
  for (const id of completed) pipeline.hmget(hub.queue.toKey(id), 'timestamp', 'finishedOn');
  for (const id of failed) pipeline.hget(hub.queue.toKey(id), 'finishedOn');
  const fields = (await pipeline.exec()) ?? [];
  return {
    completed: completed.map((_, i) => {
      const [timestamp, finishedOn] = (fields[i]?.[1] ?? []) as (string | null)[];
      return [Number(timestamp), Number(finishedOn)];
    }),
    failed: failed.map((_, i) => Number(fields[completed.length + i]?.[1])),
  };
}
