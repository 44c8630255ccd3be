import { type Env, loadSettings, type Settings } from '@switchboard/config';
import { createHubs, JOB_FIELDS, messageJobOptions, type ShardedHub, unshardedJobId } from '@switchboard/hub';
import { conversationKey, type QueuedMessage } from '@switchboard/protocol';
import { type RedisClient, type StateKeys, stateKeys, WorkerRegistry } from '@switchboard/state';
import type { Cluster } from 'ioredis';

/**
 * `npm run migrate`: copies a deployment's data from one key layout to another (one Redis to a
 * Cluster, or another `redis.shards`), using the layouts the apps themselves build (createHubs,
 * stateKeys), so every name is the apps' own. The source is only read. Every write is
 * idempotent (a memory or pairing request is written only where the target has none, in one
 * MULTI; sets and sorted sets are added to; a job is added under its new id only when no job of
 * that id exists), so a second run, or a run after a kill, copies nothing twice.
 *
 * - Conversation memory: each conversation's list, to its new shard's key, with its TTL.
 * - Access: each hook's approved people; pending pairing requests (code, person, index), TTLs kept.
 * - Unfinished jobs (waiting, prioritized, paused, delayed, and active ones a dead worker left):
 *   re-added to the conversation's new shard queue, same data, under the new layout's id (the
 *   shard mark replaced), lined up in the conversation's new line in the old order (the old line's
 *   order; jobs not in it, e.g. an operator's retry, after those by when they were accepted). The
 *   pipeline's own fields on the job (a recorded reply, pieces delivered, the tool ledger, voice
 *   notes' transcripts) go with it and the moved job runs as a re-run, which replays them: a reply
 *   already recorded is delivered, not asked for again; a voice note is not transcribed again. Lining up claims the
 *   message's dedupe key under its new id (the enqueue script), so a platform's late retry is a
 *   duplicate. The attempts made are not carried: the new job starts with all its attempts.
 * - Not copied: finished jobs, failed jobs, feeds, the delivery-events queue, rate windows,
 *   budgets, usage, caches and sessions (short-lived, or rebuilt as traffic comes).
 */
export interface Layout {
  settings: Settings;
  redis: RedisClient;
}

export interface MigrateCounts {
  /** Conversations whose memory was copied (or, dry run, would be). */
  memory: number;
  /** Approved people (hook, user) added. */
  approved: number;
  /** Pending pairing requests copied. */
  pairings: number;
  /** Unfinished jobs queued in the target. */
  jobs: number;
  /** Items the target already had (an earlier run): left alone. */
  skipped: number;
  /** Unfinished jobs whose data names no conversation: not moved. */
  unreadable: number;
}

export class MigrationRefused extends Error {}

/**
 * The settings of one side: the deployment's own (its environment and SWITCHBOARD_CONFIG) with
 * the side's Redis URL, prefix and shard count; `cluster` makes a `redis://host:port` URL a
 * cluster's seed node (`redis-cluster://host:port`).
 */
export function layoutSettings(env: Env, side: { url: string; shards?: number; prefix?: string; cluster?: boolean }): Settings {
  const url = side.cluster ? side.url.replace(/^(rediss?):\/\//, '$1-cluster://') : side.url;
  const settings = loadSettings({ ...env, REDIS_URL: url, ...(side.prefix ? { SWITCHBOARD_REDIS_PREFIX: side.prefix } : {}) });
  const shards = side.shards ?? settings.config.redis.shards;
  return { ...settings, config: { ...settings.config, redis: { ...settings.config.redis, shards } } };
}

/** Unfinished job states of a BullMQ queue. */
const UNFINISHED = ['active', 'waiting', 'prioritized', 'paused', 'delayed'] as const;

export async function migrate(
  from: Layout,
  to: Layout,
  options: { dryRun?: boolean; log?: (line: string) => void } = {},
): Promise<MigrateCounts> {
  const log = options.log ?? (() => {});
  const dryRun = options.dryRun ?? false;
  const fromState = stateKeysOf(from.settings);
  const toState = stateKeysOf(to.settings);
  for (const [name, layout, keys] of [
    ['source', from, fromState],
    ['target', to, toState],
  ] as const) {
    const alive = await new WorkerRegistry(layout.redis, keys).list();
    if (alive.length > 0) {
      throw new MigrationRefused(
        `${alive.length} worker(s) alive on the ${name} (${alive.map((w) => `${w.host}:${w.pid}`).join(', ')}): stop every worker first`,
      );
    }
  }
  const counts: MigrateCounts = { memory: 0, approved: 0, pairings: 0, jobs: 0, skipped: 0, unreadable: 0 };
  const fromHubs = createHubs(from.redis, from.settings);
  const toHubs = createHubs(to.redis, to.settings);
  try {
    await copyMemory(from, fromHubs, to, toHubs, dryRun, counts);
    log(`memory: ${counts.memory} conversation(s)`);
    await copyAccess(from.redis, fromState, to.redis, toState, dryRun, counts);
    log(`access: ${counts.approved} approved person(s), ${counts.pairings} pending pairing request(s)`);
    await copyJobs(fromHubs, toHubs, dryRun, counts);
    log(`jobs: ${counts.jobs} unfinished job(s)${counts.unreadable ? `; ${counts.unreadable} unreadable, not moved` : ''}`);
    log(`${dryRun ? 'dry run: nothing written; ' : ''}already in the target: ${counts.skipped}`);
  } finally {
    await Promise.all([fromHubs.close(), toHubs.close()]);
  }
  return counts;
}

function stateKeysOf(settings: Settings): StateKeys {
  return stateKeys(settings.redisPrefix, { cluster: settings.redis.mode === 'cluster' });
}

/** Every key matching `pattern`: on a cluster from each master (SCAN is per node). */
async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = 'nodes' in redis && typeof redis.nodes === 'function' ? (redis as Cluster).nodes('master') : [redis];
  const keys = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      for (const key of batch) keys.add(key);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...keys];
}

/** `*`, `?`, `[` and `\` of a key prefix escaped for SCAN MATCH. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

async function copyMemory(
  from: Layout,
  fromHubs: ShardedHub,
  to: Layout,
  toHubs: ShardedHub,
  dryRun: boolean,
  counts: MigrateCounts,
): Promise<void> {
  for (const shard of fromHubs.shards) {
    const start = shard.keys.memory('');
    for (const key of await scanKeys(from.redis, `${globEscape(start)}*`)) {
      const conversation = key.slice(start.length);
      if (shard !== fromHubs.forConversation(conversation)) continue;
      const target = toHubs.forConversation(conversation).keys.memory(conversation);
      if ((await to.redis.exists(target)) === 1) {
        counts.skipped++;
        continue;
      }
      const [items, ttl] = await Promise.all([from.redis.lrange(key, 0, -1), from.redis.pttl(key)]);
      if (items.length === 0) continue;
      counts.memory++;
      if (dryRun) continue;
      await writeIfAbsent(to.redis, target, (multi) => {
        multi.rpush(target, ...items);
        if (ttl > 0) multi.pexpire(target, ttl);
      });
    }
  }
}

type Multi = ReturnType<RedisClient['multi']>;

/**
 * Runs `build`'s MULTI (whole or not at all) only if `key` does not exist yet. The check and the
 * MULTI are two steps: two migrations at once could both write; one at a time (workers stopped,
 * as `migrate` demands) cannot.
 */
async function writeIfAbsent(redis: RedisClient, key: string, build: (multi: Multi) => void): Promise<void> {
  if ((await redis.exists(key)) === 1) return;
  const multi = redis.multi();
  build(multi);
  await multi.exec();
}

async function copyAccess(
  from: RedisClient,
  fromKeys: StateKeys,
  to: RedisClient,
  toKeys: StateKeys,
  dryRun: boolean,
  counts: MigrateCounts,
): Promise<void> {
  const start = fromKeys.accessUsersPrefix;
  for (const key of await scanKeys(from, `${globEscape(start)}*:users`)) {
    const hook = key.slice(start.length, -':users'.length);
    if (key !== fromKeys.accessUsers(hook)) continue;
    const users = await from.smembers(key);
    const target = toKeys.accessUsers(hook);
    const present = users.length ? await to.smismember(target, ...users) : [];
    const missing = users.filter((_, i) => present[i] !== 1);
    counts.approved += missing.length;
    counts.skipped += users.length - missing.length;
    if (!dryRun && missing.length) await to.sadd(target, ...missing);
  }
  const pending = await from.zrange(fromKeys.pairingPending, 0, -1, 'WITHSCORES');
  for (let i = 0; i < pending.length; i += 2) {
    const code = pending[i]!;
    const created = pending[i + 1]!;
    const source = fromKeys.pairingCode(code);
    const [request, ttl] = await Promise.all([from.hgetall(source), from.pttl(source)]);
    if (!request.hook || !request.user || ttl <= 0) continue;
    const target = toKeys.pairingCode(code);
    if ((await to.exists(target)) === 1) {
      counts.skipped++;
      continue;
    }
    counts.pairings++;
    if (dryRun) continue;
    const person = toKeys.pairingPerson(request.hook, request.user);
    // The request, its person's code and the index in one MULTI: all under the deployment's tag.
    await writeIfAbsent(to, target, (multi) => {
      multi.hset(target, request);
      multi.pexpire(target, ttl);
      multi.set(person, code, 'PX', ttl, 'NX');
      multi.zadd(toKeys.pairingPending, created, code);
    });
  }
}

interface Unfinished {
  id: string;
  conversation: string;
  data: QueuedMessage;
  /** Place in the old line; jobs not in it come after, by `timestamp`. */
  place: number;
  timestamp: number;
  /** The pipeline's fields on the job's hash (JOB_FIELDS). */
  fields: Record<string, string>;
}

async function copyJobs(fromHubs: ShardedHub, toHubs: ShardedHub, dryRun: boolean, counts: MigrateCounts): Promise<void> {
  const byConversation = new Map<string, Unfinished[]>();
  for (const shard of fromHubs.shards) {
    const jobs = await shard.queue.getJobs([...UNFINISHED], 0, -1, true);
    const lines = new Map<string, string[]>();
    for (const job of jobs) {
      const data = job.data as QueuedMessage | undefined;
      // A job of no shape this release reads (a stray add) has no conversation to move it to.
      if (!job.id || typeof data?.hook !== 'string' || typeof data.message?.conversation !== 'string') {
        counts.unreadable++;
        continue;
      }
      const conversation = conversationKey(data.hook, data.message.conversation);
      let line = lines.get(conversation);
      if (!line) {
        line = await shard.redis.lrange(shard.keys.order(conversation), 0, -1);
        lines.set(conversation, line);
      }
      const place = line.indexOf(job.id);
      const hash = await shard.redis.hgetall(shard.queue.toKey(job.id));
      const fields = Object.fromEntries(Object.entries(hash).filter(([name]) => isPipelineField(name)));
      const entry: Unfinished = {
        id: job.id,
        conversation,
        data,
        place: place < 0 ? Number.MAX_SAFE_INTEGER : place,
        timestamp: job.timestamp,
        fields,
      };
      byConversation.set(conversation, [...(byConversation.get(conversation) ?? []), entry]);
    }
  }
  for (const [conversation, jobs] of byConversation) {
    jobs.sort((a, b) => a.place - b.place || a.timestamp - b.timestamp);
    const hub = toHubs.forConversation(conversation);
    for (const job of jobs) {
      const id = hub.jobId(unshardedJobId(job.id, fromHubs.shards.length));
      const key = hub.queue.toKey(id);
      if ((await hub.redis.exists(key)) === 1) {
        counts.skipped++;
        // Added by a run killed before it wrote the job's fields (it never ran here: no `ats`): written now.
        if (!dryRun && (await hub.redis.hexists(key, 'ats')) === 0) await carryFields(hub.redis, key, job.fields);
        continue;
      }
      counts.jobs++;
      if (dryRun) continue;
      const line = hub.keys.order(conversation);
      // A run killed between lining up and adding left the id in the line: its place is kept.
      const place = await hub.redis.lpos(line, id);
      const parkMs =
        place === null
          ? (await hub.order.enqueue(conversation, id, job.data.message.dedupeKey !== null)).parkMs
          : hub.order.firstParkMs(place);
      const waits = parkMs > 0;
      await hub.queue.add('message', { ...job.data, waits }, messageJobOptions(hub, id, parkMs));
      await carryFields(hub.redis, key, job.fields);
      if (waits) await hub.order.wakeIfFirst(conversation, id);
    }
  }
}

/**
 * Writes what earlier runs recorded onto the moved job. It goes on as a re-run, which reads those
 * fields (a first run reads nothing): `ats` is BullMQ's attemptsStarted (Job.fromJSON reads it, the
 * move to active adds one), so the new deployment's first run is its second start. Attempts made
 * (`atm`) are not carried: the job keeps all its attempts.
 */
async function carryFields(redis: RedisClient, key: string, fields: Record<string, string>): Promise<void> {
  if (Object.keys(fields).length) await redis.hset(key, { ...fields, ats: 1 });
}

/**
 * The pipeline's fields a job carries: every one JOB_FIELDS names (a name ending in `:` is a
 * prefix: the tool ledger's `sbTool:…`, the transcripts' `sbHeard:<i>`), so a field added there
 * moves with the job; not `sbDone` (an unfinished job is not done) nor `sbRejoin` (the move lines
 * the job up anew).
 */
const CARRIED_FIELDS = Object.values(JOB_FIELDS).filter((name) => name !== JOB_FIELDS.done && name !== JOB_FIELDS.rejoin);

function isPipelineField(name: string): boolean {
  return CARRIED_FIELDS.some((field) => (field.endsWith(':') ? name.startsWith(field) : name === field));
}
