// The hub bench's recovery phase: a worker SIGKILLed while it holds messages, and how long until
// the other worker has delivered every one of them. The built API and two built workers on the
// bench's private Redis, the default `worker.lockMs`; a model in this process that holds its
// answers until the kill (packages/testing's OpenAI stand-in), and the bench's reply receiver.
// Each conversation sends two messages: the worker holds the first of each (concurrency
// conversations), the second is parked behind it and must be woken when the first is done.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { hubKeys, INBOUND_QUEUE } from '../packages/hub/dist/index.js';
import { answerText, startOpenAIUpstream } from '../packages/testing/dist/index.js';
import { freePort, waitForHealth } from './children.mjs';
import { switchboardEnv } from './env.mjs';
import { API_KEY, REPLY_TEXT } from './fixture.mjs';
import { startReceiver } from './receiver.mjs';

const HOOK = 'recovery';
const HOOK_TOKEN = 'bench-recovery-token-0123456789';
const PREFIX = 'recovery';
const PER_CONVERSATION = 2;

/**
 * @param {{ tempDir: string, redisUrl: string, spawnChild: Function, apiMain: string, workerMain: string,
 *   workerNodeArgs: string[], concurrency: number, logLevel: string, timeoutMs: number }} o
 * @returns {Promise<{ messages: number, recoveryMs: number, deliveries: number, missing: number, duplicates: number }>}
 */
export async function recoveryScenario(o) {
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  let modelCalls = 0;
  const upstream = await startOpenAIUpstream(async (req, res) => {
    modelCalls++;
    await gate;
    if (!res.destroyed) answerText(req, res, REPLY_TEXT);
  });
  /** job id → epoch ms of each delivery */
  const deliveries = new Map();
  const receiver = await startReceiver({
    path: '/inbox',
    hook: HOOK,
    onDelivery: ({ id, at }) => deliveries.set(id, [...(deliveries.get(id) ?? []), at]),
  });
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(INBOUND_QUEUE, { connection: redis, prefix: hubKeys(PREFIX).bullPrefix });
  queue.on('error', () => {});
  try {
    const configPath = join(o.tempDir, 'recovery.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        defaultModel: 'bench/gpt-4o-mini',
        providers: { bench: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: API_KEY, models: ['gpt-4o-mini'] } },
        hooks: { [HOOK]: { type: 'generic', token: HOOK_TOKEN, replyUrl: `http://127.0.0.1:${receiver.port}/inbox` } },
        worker: { concurrency: o.concurrency },
      }),
    );
    const env = (port) => switchboardEnv({ port, configPath, redisUrl: o.redisUrl, prefix: PREFIX, logLevel: o.logLevel });
    const apiPort = await freePort();
    const api = o.spawnChild('api (recovery)', [o.apiMain], env(apiPort), 'ignore');
    await waitForHealth(`http://127.0.0.1:${apiPort}`, api);
    const doomed = o.spawnChild('worker (to be killed)', [...o.workerNodeArgs, o.workerMain], env(undefined), 'ignore');

    const ids = [];
    for (let seq = 0; seq < PER_CONVERSATION; seq++) {
      for (let c = 0; c < o.concurrency; c++) {
        const res = await fetch(`http://127.0.0.1:${apiPort}/hooks/${HOOK}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
          body: JSON.stringify({ from: `recovery-${c}`, text: `message ${seq}` }),
        });
        if (res.status !== 202) throw new Error(`recovery: hook answered ${res.status}`);
        ids.push((await res.json()).id);
      }
    }
    await until(() => modelCalls >= o.concurrency, o.timeoutMs, 'the worker to hold one message per conversation');
    o.spawnChild('worker (survivor)', [...o.workerNodeArgs, o.workerMain], env(undefined), 'ignore');
    await until(async () => (await queue.getWorkersCount()) >= 2, o.timeoutMs, 'the second worker to connect');

    const killedAt = performance.timeOrigin + performance.now();
    doomed.killNow();
    await doomed.exited;
    release();
    const allDelivered = () => ids.every((id) => deliveries.has(id));
    await until(allDelivered, o.timeoutMs + 30_000, 'every message to be delivered after the kill').catch(() => {});
    await sleep(500); // a duplicate would come now
    const times = ids.flatMap((id) => deliveries.get(id) ?? []);
    return {
      messages: ids.length,
      recoveryMs: allDelivered() ? Math.max(...times) - killedAt : Number.NaN,
      deliveries: times.length,
      missing: ids.filter((id) => !deliveries.has(id)).length,
      duplicates: ids.filter((id) => (deliveries.get(id)?.length ?? 0) > 1).length,
    };
  } finally {
    release();
    await queue.close().catch(() => {});
    redis.disconnect();
    await receiver.close();
    await upstream.close();
  }
}

/** One line for the report. */
export function recoveryReport(result) {
  const figure = Number.isNaN(result.recoveryMs) ? 'not every message was delivered' : `${Math.round(result.recoveryMs)} ms`;
  const problems = [
    result.missing ? `${result.missing} missing` : '',
    result.duplicates ? `${result.duplicates} delivered twice` : '',
  ].filter(Boolean);
  return `recovery: kill → last delivered ${figure} (${result.messages} messages)${problems.length ? ` ⚠ ${problems.join(', ')}` : ''}`;
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`recovery: gave up waiting for ${what} after ${timeoutMs} ms`);
}
