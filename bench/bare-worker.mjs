#!/usr/bin/env node
// The floor for apps/worker: a BullMQ Worker whose processor does nothing, on the same kind of
// connection and with the same concurrency, so that what it costs is BullMQ's own share of a
// message. It tells the bench about every completed job on stdout, `<job id> <epoch ms>` per
// line (written once per event-loop turn, not per job, so the reporting stays cheap), after a
// first line `ready`. Exits on SIGTERM/SIGINT, or when its stdin closes (the bench died).
// Env: REDIS_URL, BARE_QUEUE, BARE_PREFIX, BARE_CONCURRENCY.
import { performance } from 'node:perf_hooks';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const env = process.env;
// As apps/worker connects (createQueueRedis): BullMQ needs maxRetriesPerRequest null.
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null, enableOfflineQueue: true });
connection.on('error', () => {});
const worker = new Worker(env.BARE_QUEUE, async () => {}, {
  connection,
  prefix: env.BARE_PREFIX,
  concurrency: Number(env.BARE_CONCURRENCY),
});
worker.on('error', (err) => process.stderr.write(`bare worker: ${err.message}\n`));

let pending = '';
worker.on('completed', (job) => {
  if (pending === '') setImmediate(flush);
  pending += `${job.id} ${performance.timeOrigin + performance.now()}\n`;
});
function flush() {
  process.stdout.write(pending);
  pending = '';
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 3000).unref();
  await worker.close().catch(() => {});
  if (pending) flush();
  connection.disconnect();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();

await worker.waitUntilReady();
process.stdout.write('ready\n');
