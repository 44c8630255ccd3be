import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '@switchboard/config';
import { acceptMessage, createHubs, JOB_FIELDS } from '@switchboard/hub';
import { createLogger } from '@switchboard/logger';
import { conversationKey, type InboundMessage } from '@switchboard/protocol';
import { AccessStore, createQueueRedis, type RedisClient, stateKeys } from '@switchboard/state';
import {
  completionBody,
  eventually,
  type LocalServer,
  lastUserText,
  lineCollector,
  type PrivateCluster,
  type PrivateRedis,
  type RecordedRequest,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
  startPrivateCluster,
  startPrivateRedis,
  transcriptionsHandler,
  wavFile,
} from '@switchboard/testing';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWorkerDeps, createWorkerDeps } from './deps.js';
import { layoutSettings, MigrationRefused, migrate } from './migrate.js';
import { startWorker } from './worker.js';

/**
 * `npm run migrate` moves a running deployment: one Redis with one shard, whose worker answered
 * some messages and then stopped with messages still queued, to another Redis with 4 shards, and
 * to a Redis Cluster of 3 masters with 4 shards.
 * A worker there answers the queued messages in order and with the conversations' memory, a
 * follow-up sees its memory, a platform's late retry is a duplicate, approved people and pending
 * pairing requests carry over, and a second run copies nothing.
 */
let source: PrivateRedis;
let target: PrivateRedis;
let cluster: PrivateCluster | undefined;
let upstream: LocalServer;
let receiver: LocalServer;
let dir: string;
const clients: RedisClient[] = [];

beforeAll(async () => {
  [source, target] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
  // The reply names the message and how many messages of the conversation the model was given.
  upstream = await startOpenAIUpstream((req, res, raw) => {
    if (req.url.endsWith('/audio/transcriptions')) return transcriptionsHandler(req, res, raw);
    const messages = (req.json as { messages: { role: string }[] }).messages.filter((m) => m.role !== 'system');
    sendJson(res, 200, completionBody('gpt-4o-mini', `re: ${lastUserText(req)} (${messages.length})`));
  });
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  dir = mkdtempSync(join(tmpdir(), 'switchboard-migrate-'));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      defaultModel: 'up/gpt-4o-mini',
      providers: { up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'], audioModels: ['whisper-1'] } },
      hooks: {
        support: { type: 'generic', token: 'hook-token-0123456789', replyUrl: `${receiver.url}/inbox`, stream: false },
        voice: {
          type: 'generic',
          token: 'hook-token-0123456789',
          replyUrl: `${receiver.url}/inbox`,
          stream: false,
          media: { audio: 'up/whisper-1' },
        },
      },
      worker: { attempts: 3, backoffMs: 10, orderRecheckMs: 100 },
    }),
  );
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all([source?.kill(), target?.kill(), cluster?.stop(), upstream?.close(), receiver?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const env = (prefix: string) => ({ SWITCHBOARD_CONFIG: join(dir, 'config.json'), SWITCHBOARD_REDIS_PREFIX: prefix });

function connect(settings: Settings): RedisClient {
  const redis = createQueueRedis(settings.redis);
  clients.push(redis);
  return redis;
}

function runWorker(settings: Settings) {
  const deps = createWorkerDeps(settings, {
    logger: createLogger({ level: 'warn', secrets: [], stream: lineCollector().stream }),
  });
  const running = startWorker(deps);
  return {
    deps,
    async stop() {
      await running.close(0);
      await closeWorkerDeps(deps);
    },
  };
}

const message = (conversation: string, text: string, dedupeKey: string | null = null): InboundMessage => ({
  action: 'chat',
  text,
  from: conversation,
  conversation,
  dedupeKey,
  replyTo: {},
});

/** Deliveries since the scenario started. */
let seen = 0;
const delivered = () => receiver.requests.slice(seen).map((r: RecordedRequest) => (r.json as { text: string }).text);

/** Every key of the target (on a cluster: of each master). */
async function keysOf(redis: RedisClient): Promise<string[]> {
  const nodes = redis.constructor.name === 'Cluster' ? (redis as Cluster).nodes('master') : [redis];
  return (await Promise.all(nodes.map((node) => node.keys('*')))).flat();
}
const deliveredIn = (conversation: string) => delivered().filter((text) => text.startsWith(`re: ${conversation} `));

async function moves(prefix: string, targetUrl: string, cluster = false): Promise<void> {
  seen = receiver.requests.length;
  const from = layoutSettings(env(prefix), { url: source.url });
  const to = layoutSettings(env(prefix), { url: targetUrl, shards: 4, cluster });
  expect(to.redis.mode).toBe(cluster ? 'cluster' : 'single');
  const fromRedis = connect(from);
  const toRedis = connect(to);
  const conversations = ['ana', 'ben', 'cleo', 'dev', 'eli', 'fay'];

  // The running deployment: each conversation said hello and was answered.
  const fromHubs = createHubs(fromRedis, from);
  const worker = runWorker(from);
  for (const c of conversations) await acceptMessage(fromHubs, 'support', message(c, `${c} hello`));
  await eventually(() => expect(delivered()).toHaveLength(conversations.length));
  const fromAccess = new AccessStore(fromRedis, stateKeys(from.redisPrefix));
  const approved = await fromAccess.requestPairing('support', 'ana', 'Ana');
  await fromAccess.decide(approved.code, true);
  const pending = await fromAccess.requestPairing('support', 'gus', 'Gus');

  // While a worker is alive the tool refuses and writes nothing.
  await expect(migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis })).rejects.toThrow(MigrationRefused);
  expect(await keysOf(toRedis)).toEqual([]);
  await worker.stop();

  // Queued while no worker runs: three messages in each of three conversations, some with the platform's dedupe key.
  const queued = ['ana', 'ben', 'cleo'];
  for (const text of ['one', 'two', 'three']) {
    for (const c of queued) await acceptMessage(fromHubs, 'support', message(c, `${c} ${text}`, `${c}-${text}`));
  }
  await fromHubs.close();

  const dry = await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis }, { dryRun: true });
  expect(dry).toEqual({ memory: 6, approved: 1, pairings: 1, jobs: 9, skipped: 0, unreadable: 0 });
  // Nothing but the queues' own `meta` hashes, which BullMQ writes when a queue is opened.
  expect((await keysOf(toRedis)).filter((key) => !key.endsWith(':meta'))).toEqual([]);

  const lines: string[] = [];
  const first = await migrate(
    { settings: from, redis: fromRedis },
    { settings: to, redis: toRedis },
    { log: (l) => lines.push(l) },
  );
  expect(first).toEqual({ memory: 6, approved: 1, pairings: 1, jobs: 9, skipped: 0, unreadable: 0 });
  expect(lines.join('\n')).toContain('jobs: 9 unfinished job(s)');
  const again = await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis });
  expect(again).toEqual({ memory: 0, approved: 0, pairings: 0, jobs: 0, skipped: 6 + 1 + 1 + 9, unreadable: 0 });

  // The new deployment answers what was queued, in order, with each conversation's memory.
  const toHubs = createHubs(toRedis, to);
  const newWorker = runWorker(to);
  try {
    await eventually(() => expect(delivered()).toHaveLength(conversations.length + 9), 1000);
    for (const c of queued)
      expect(deliveredIn(c)).toEqual([`re: ${c} hello (1)`, `re: ${c} one (3)`, `re: ${c} two (5)`, `re: ${c} three (7)`]);
    // The queued conversations landed on more than one shard.
    expect(new Set(queued.map((c) => toHubs.forConversation(conversationKey('support', c)).shard)).size).toBeGreaterThan(1);

    // A follow-up in a conversation that had nothing queued sees its memory.
    await acceptMessage(toHubs, 'support', message('dev', 'dev again'));
    await eventually(() => expect(deliveredIn('dev')).toEqual(['re: dev hello (1)', 're: dev again (3)']));

    // The platform's late retry of a migrated message is a duplicate: nothing is queued or answered.
    const retry = await acceptMessage(toHubs, 'support', message('ben', 'ben two', 'ben-two'));
    expect(retry.duplicate).toBe(true);

    // Access carried over: the approved person, and the pending request, which can still be decided.
    const toAccess = new AccessStore(toRedis, stateKeys(to.redisPrefix, { cluster }));
    expect(await toAccess.isApproved('support', 'ana')).toBe(true);
    expect((await toAccess.pending()).map((p) => [p.code, p.user])).toEqual([[pending.code, 'gus']]);
    expect(await toAccess.decide(pending.code, true)).toMatchObject({ hook: 'support', user: 'gus' });
    expect(await toAccess.isApproved('support', 'gus')).toBe(true);
  } finally {
    await newWorker.stop();
    await toHubs.close();
  }
  expect(delivered()).toHaveLength(conversations.length + 9 + 1);
}

describe('npm run migrate', () => {
  it('moves conversations, access and queued messages to another Redis with 4 shards, once', async () => {
    await moves('sbmigrate-single', target.url);
  });

  it('resumes a run killed between lining a job up and adding it: the job keeps its place, nothing twice', async () => {
    seen = receiver.requests.length;
    const from = layoutSettings(env('sbmigrate-resume'), { url: source.url });
    const to = layoutSettings(env('sbmigrate-resume'), { url: target.url, shards: 2 });
    const [fromRedis, toRedis] = [connect(from), connect(to)];
    const fromHubs = createHubs(fromRedis, from);
    const queued = [];
    for (const text of ['one', 'two']) queued.push(await acceptMessage(fromHubs, 'support', message('hal', `hal ${text}`)));
    // A stray job of no shape this release reads: counted, not moved.
    await fromHubs.shards[0]!.queue.add('message', { stray: true }, { jobId: 'stray' });
    await fromHubs.close();
    // What a killed run left: the first job lined up in the target, not added (no dedupe key: lining up again would add a second entry).
    const toHubs = createHubs(toRedis, to);
    const conversation = conversationKey('support', 'hal');
    const hub = toHubs.forConversation(conversation);
    const firstId = hub.jobId(queued[0]!.jobId);
    await hub.order.enqueue(conversation, firstId, false);

    const counts = await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis });
    expect(counts).toMatchObject({ jobs: 2, skipped: 0, unreadable: 1 });
    expect(await toRedis.lrange(hub.keys.order(conversation), 0, -1)).toEqual([firstId, hub.jobId(queued[1]!.jobId)]);
    const worker = runWorker(to);
    try {
      await eventually(() => expect(deliveredIn('hal')).toEqual(['re: hal one (1)', 're: hal two (3)']));
    } finally {
      await worker.stop();
      await toHubs.close();
    }
  });

  it("carries what a job recorded: a voice note's transcript is not transcribed again, a reply not asked for again", async () => {
    seen = receiver.requests.length;
    const from = layoutSettings(env('sbmigrate-heard'), { url: source.url });
    const to = layoutSettings(env('sbmigrate-heard'), { url: target.url, shards: 2 });
    const [fromRedis, toRedis] = [connect(from), connect(to)];
    const fromHubs = createHubs(fromRedis, from);
    const note = { kind: 'audio', ref: `data:audio/wav;base64,${wavFile(4000).toString('base64')}`, name: 'note.wav' } as const;
    const accepted = await acceptMessage(fromHubs, 'voice', { ...message('ivy', ''), media: [note] });
    // What a run that transcribed the note and was then killed left on the job.
    const conversation = conversationKey('voice', 'ivy');
    await fromHubs
      .forConversation(conversation)
      .transcripts.record(accepted.jobId, 0, { text: 'ivy said: book a table', memo: '[voice 0:01] ivy said: book a table' });
    // A reply recorded by a run killed before delivering it.
    const answered = await acceptMessage(fromHubs, 'support', message('jay', 'jay asks'));
    const reply = { text: 'recorded for jay', model: 'gpt-4o-mini', created: 1_764_000_000 };
    await fromHubs
      .forConversation(conversationKey('support', 'jay'))
      .exchange.record(answered.jobId, conversationKey('support', 'jay'), 'jay asks', reply);
    await fromHubs.close();
    const transcriptions = () => upstream.requests.filter((r) => r.url.endsWith('/audio/transcriptions')).length;
    const before = transcriptions();

    expect(await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis })).toMatchObject({ jobs: 2 });
    const toHubs = createHubs(toRedis, to);
    const worker = runWorker(to);
    try {
      await eventually(() => expect(delivered().sort()).toEqual(['re: ivy said: book a table (1)', 'recorded for jay']));
      expect(transcriptions()).toBe(before);
      expect(upstream.requests.filter((r) => r.url.endsWith('/chat/completions') && lastUserText(r) === 'jay asks')).toEqual([]);
    } finally {
      await worker.stop();
      await toHubs.close();
    }
  });

  it('writes what a job recorded on a second run when the first was killed between adding the job and writing it', async () => {
    seen = receiver.requests.length;
    const from = layoutSettings(env('sbmigrate-killed'), { url: source.url });
    const to = layoutSettings(env('sbmigrate-killed'), { url: target.url, shards: 2 });
    const [fromRedis, toRedis] = [connect(from), connect(to)];
    const fromHubs = createHubs(fromRedis, from);
    const conversation = conversationKey('support', 'kim');
    const answered = await acceptMessage(fromHubs, 'support', message('kim', 'kim asks'));
    const reply = { text: 'recorded for kim', model: 'gpt-4o-mini', created: 1_764_000_000 };
    await fromHubs.forConversation(conversation).exchange.record(answered.jobId, conversation, 'kim asks', reply);
    await fromHubs.close();

    expect(await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis })).toMatchObject({ jobs: 1 });
    const toHubs = createHubs(toRedis, to);
    const hub = toHubs.forConversation(conversation);
    const key = hub.queue.toKey(hub.jobId(answered.jobId));
    // What a run killed after adding the job and before writing its fields left: the job alone.
    await toRedis.hdel(key, JOB_FIELDS.reply, 'ats');
    expect(await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis })).toMatchObject({ jobs: 0 });
    const worker = runWorker(to);
    try {
      await eventually(() => expect(delivered().filter((text) => text.includes('kim'))).toEqual(['recorded for kim']));
      expect(upstream.requests.filter((r) => r.url.endsWith('/chat/completions') && lastUserText(r) === 'kim asks')).toEqual([]);
    } finally {
      await worker.stop();
      await toHubs.close();
    }
  });

  it('moves them to a Redis Cluster of 3 masters with 4 shards, once', async () => {
    cluster = await startPrivateCluster(3);
    // A cluster node's redis:// URL, as an operator would give it with --cluster-to.
    await moves('sbmigrate-cluster', `redis://${cluster.nodes[0]}`, true);
  });

  it('moves a cluster of 4 shards back to one Redis with 2 shards: memory, access and queued messages', async () => {
    if (!cluster) throw new Error('runs after the cluster case, whose deployment it moves');
    seen = receiver.requests.length;
    const from = layoutSettings(env('sbmigrate-cluster'), { url: `redis://${cluster.nodes[0]}`, shards: 4, cluster: true });
    const to = layoutSettings(env('sbmigrate-cluster'), { url: target.url, shards: 2 });
    const [fromRedis, toRedis] = [connect(from), connect(to)];
    const fromHubs = createHubs(fromRedis, from);
    for (const text of ['four', 'five']) await acceptMessage(fromHubs, 'support', message('ana', `ana ${text}`, `ana-${text}`));
    await fromHubs.close();

    const counts = await migrate({ settings: from, redis: fromRedis }, { settings: to, redis: toRedis });
    expect(counts).toEqual({ memory: 6, approved: 2, pairings: 0, jobs: 2, skipped: 0, unreadable: 0 });
    const toHubs = createHubs(toRedis, to);
    const worker = runWorker(to);
    try {
      // ana's memory holds four exchanges (hello, one, two, three) from the cluster.
      await eventually(() => expect(deliveredIn('ana')).toEqual(['re: ana four (9)', 're: ana five (11)']));
      expect((await acceptMessage(toHubs, 'support', message('ana', 'ana five', 'ana-five'))).duplicate).toBe(true);
      const access = new AccessStore(toRedis, stateKeys(to.redisPrefix));
      expect([await access.isApproved('support', 'ana'), await access.isApproved('support', 'gus')]).toEqual([true, true]);
    } finally {
      await worker.stop();
      await toHubs.close();
    }
  });
});
