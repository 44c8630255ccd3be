import type { Settings } from '@switchboard/config';
import calculateSlot from 'cluster-key-slot';

/**
 * How the hook pipeline is split into shards (`redis.shards`). Each shard is a whole pipeline
 * (hub.ts) under a key base of its own: its BullMQ queue, and the lines, memory, dedupe keys and
 * feeds of the conversations that belong to it. A conversation belongs to one shard for good (a
 * stable hash of its key), so every script still touches one shard's keys only.
 *
 * - One shard: the base is the deployment's `keyPrefix` (`switchboard`, or `{switchboard}` on a
 *   cluster), the names earlier releases wrote.
 * - Several, on Redis Cluster: each base is a hash tag of its own, `{switchboard:<n>}`. The tags
 *   are chosen so shard n's slot lies in the n-th of `shards` equal parts of the 16,384 slots:
 *   where `{switchboard:<n>}` falls elsewhere, the first `{switchboard:<n>:<k>}` (k = 1, 2, …) that
 *   falls there is taken. A cluster whose masters own equal runs of slots (what
 *   `redis-cli --cluster create` makes) then carries an equal number of shards on each master,
 *   rather than whatever CRC16 gives 16 names.
 * - Several, on one Redis: `switchboard:<n>` (no slots to spread over).
 */
export function shardBases(
  settings: Pick<Settings, 'keyPrefix' | 'redisPrefix' | 'redis'> & { config: { redis: { shards: number } } },
): string[] {
  const count = settings.config.redis.shards;
  if (count <= 1) return [settings.keyPrefix];
  const cluster = settings.redis.mode === 'cluster';
  return Array.from({ length: count }, (_, n) =>
    cluster ? spreadTag(settings.redisPrefix, n, count) : `${settings.redisPrefix}:${n}`,
  );
}

const SLOTS = 16_384;

function spreadTag(prefix: string, n: number, count: number): string {
  const first = Math.floor((SLOTS * n) / count);
  const end = Math.floor((SLOTS * (n + 1)) / count);
  for (let k = 0; ; k++) {
    const tag = `{${k === 0 ? `${prefix}:${n}` : `${prefix}:${n}:${k}`}}`;
    const slot = calculateSlot(tag);
    if (slot >= first && slot < end) return tag;
  }
}

/** The shard a conversation (its `conversationKey`) belongs to: FNV-1a of its key, modulo the count. */
export function shardOf(conversation: string, count: number): number {
  if (count <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < conversation.length; i++) {
    hash ^= conversation.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/**
 * A job id names its shard when there are several: `<id>~<n>` (hook names, UUIDs and the
 * dedupe hashes never hold `~`), so the job view, replay and approvals find its queue from the id.
 */
export const SHARD_MARK = '~';

export function shardedJobId(id: string, shard: number, count: number): string {
  return count > 1 ? `${id}${SHARD_MARK}${shard}` : id;
}

/** A job id without the shard mark `shardedJobId` gave it (`<id>~<n>`, when there were several shards). */
export function unshardedJobId(jobId: string, count: number): string {
  if (count <= 1) return jobId;
  const mark = jobId.lastIndexOf(SHARD_MARK);
  return mark < 0 ? jobId : jobId.slice(0, mark);
}

/** The shard named by a job id; 0 when it names none (then a look-up finds nothing in a sharded deployment). */
export function shardOfJob(jobId: string, count: number): number {
  if (count <= 1) return 0;
  const mark = jobId.lastIndexOf(SHARD_MARK);
  const shard = mark < 0 ? Number.NaN : Number(jobId.slice(mark + 1));
  return Number.isInteger(shard) && shard >= 0 && shard < count && jobId.slice(mark + 1) === String(shard) ? shard : 0;
}
