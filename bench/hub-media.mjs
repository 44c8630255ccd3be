// The hub bench's media phase (issue 21): what an image costs the worker. The built worker answers
// messages of a generic hook with `media.images` on, each carrying a 1 MB PNG by URL; a file server
// and a model in this process (neither records what it got: 1,000 MB of request bodies kept would
// be the bench's memory, not the worker's). Measured: worker CPU per message with the image and
// without (the same hook, text only), and the worker's RSS (from /proc) after every batch of
// messages — flat over the run means the bytes of earlier images are not kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { loadSettings } from '../packages/config/dist/index.js';
import { acceptMessage, createHub } from '../packages/hub/dist/index.js';
import { TINY_PNG } from '../packages/testing/dist/index.js';
import { processCpuMs } from './cpu.mjs';
import { switchboardEnv } from './env.mjs';
import { markdownTable } from './report.mjs';

const HOOK = 'pictures';
const IMAGE_BYTES = 1_000_000;
/** A valid PNG (its signature and chunks first: file-type sniffs it as image/png), padded to 1 MB after IEND. */
const IMAGE = Buffer.concat([TINY_PNG, Buffer.alloc(IMAGE_BYTES - TINY_PNG.length, 0x5a)]);

/**
 * @param {{ tempDir: string, redisUrl: string, spawnChild: Function, workerMain: string, workerNodeArgs: string[],
 *   logLevel: string, messages: number, warmup: number, batch: number, concurrency: number, timeoutMs: number }} o
 * @returns {Promise<MediaResult>}
 */
export async function mediaScenario(o) {
  const files = await listen((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(IMAGE));
  const completion = JSON.stringify({
    id: 'chatcmpl-media',
    object: 'chat.completion',
    created: 1_736_942_400,
    model: 'vision',
    choices: [{ index: 0, message: { role: 'assistant', content: 'A chart.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 800, completion_tokens: 3, total_tokens: 803 },
  });
  let modelBytes = 0;
  const model = await listen((req, res) => {
    // The body is read and dropped: only its size is kept (the image arrives as ~1.33 MB of base64).
    req.on('data', (chunk) => {
      modelBytes += chunk.length;
    });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(completion));
  });
  const configPath = join(o.tempDir, 'media.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      defaultModel: 'bench/vision',
      providers: { bench: { type: 'openai', baseUrl: `${model.url}/v1`, apiKey: 'sk-bench-media', models: ['vision'] } },
      hooks: {
        [HOOK]: {
          type: 'generic',
          token: 'bench-media-token-0123',
          stream: false,
          media: { images: true, allowPrivateUrls: true },
        },
      },
      worker: { concurrency: o.concurrency },
    }),
  );
  const env = switchboardEnv({ configPath, redisUrl: o.redisUrl, prefix: 'media', logLevel: o.logLevel });
  const settings = loadSettings(env);
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const hub = createHub(redis, settings);
  const worker = o.spawnChild('worker (media)', [...o.workerNodeArgs, o.workerMain], env, 'ignore');
  let sent = 0;

  /** Accepts `count` messages (each its own conversation), `withImage` or text only; resolves when all are answered. */
  async function run(count, withImage) {
    const target = sent + count;
    for (let i = 0; i < count; i++) {
      const n = sent++;
      await acceptMessage(hub, HOOK, {
        action: 'chat',
        text: `what is in image ${n}?`,
        from: 'bench',
        conversation: `media-${n}`,
        dedupeKey: null,
        replyTo: {},
        ...(withImage ? { media: [{ kind: 'image', ref: `${files.url}/chart-${n}.png`, name: 'chart.png' }] } : {}),
      });
    }
    const deadline = Date.now() + o.timeoutMs;
    for (;;) {
      const { completed, failed } = await hub.queue.getJobCounts('completed', 'failed');
      if (failed > 0) throw new Error(`media: ${failed} jobs failed`);
      if (completed >= target) return;
      if (Date.now() > deadline) throw new Error(`media: ${target - completed} messages not answered within ${o.timeoutMs} ms`);
      await sleep(20);
    }
  }

  try {
    await run(o.warmup, true);
    const textCpu0 = processCpuMs(worker.pid);
    await run(o.batch, false);
    const textCpuMs = (processCpuMs(worker.pid) - textCpu0) / o.batch;
    const samples = [{ after: 0, rssMiB: rssMiB(worker.pid) }];
    const cpu0 = processCpuMs(worker.pid);
    const started = Date.now();
    for (let done = 0; done < o.messages; done += o.batch) {
      await run(Math.min(o.batch, o.messages - done), true);
      samples.push({ after: Math.min(done + o.batch, o.messages), rssMiB: rssMiB(worker.pid) });
    }
    const imageCpuMs = (processCpuMs(worker.pid) - cpu0) / o.messages;
    return {
      messages: o.messages,
      warmup: o.warmup,
      imageBytes: IMAGE_BYTES,
      textCpuMs,
      imageCpuMs,
      seconds: (Date.now() - started) / 1000,
      // The text-only batch's requests are a few hundred bytes each: counted against the image messages only.
      modelMiBPerMessage: modelBytes / (o.warmup + o.messages) / 1_048_576,
      samples,
    };
  } finally {
    await hub.close();
    redis.disconnect();
    await Promise.all([files.close(), model.close()]);
  }
}

/**
 * @typedef {{ messages: number, warmup: number, imageBytes: number, textCpuMs: number, imageCpuMs: number, seconds: number,
 *   modelMiBPerMessage: number, samples: { after: number, rssMiB: number }[] }} MediaResult
 */

/**
 * The figures, and whether RSS stayed flat: the last sample within 10 % (or 20 MiB, whichever is
 * larger: one concurrency's worth of 1 MB images and their base64 copies saws up and down with
 * garbage collection) of the first after warm-up.
 * @param {MediaResult} r
 */
export function mediaReport(r) {
  const first = r.samples[0].rssMiB;
  const last = r.samples.at(-1).rssMiB;
  const peak = Math.max(...r.samples.map((s) => s.rssMiB));
  const allowed = Math.max(first * 0.1, 20);
  const flat = last - first <= allowed;
  const table = markdownTable(
    ['after N image messages', 'worker RSS (MiB)'],
    r.samples.map((s) => [String(s.after), s.rssMiB.toFixed(1)]),
    ['r', 'r'],
  );
  return [
    `## Media: a ${(r.imageBytes / 1_000_000).toFixed(0)} MB image per message (${r.messages} messages after ${r.warmup} of warm-up)`,
    '',
    `- worker CPU per message: ${r.imageCpuMs.toFixed(2)} ms with the image, ${r.textCpuMs.toFixed(2)} ms text only ` +
      `(the image: +${(r.imageCpuMs - r.textCpuMs).toFixed(2)} ms: download, sniff, base64, a ${r.modelMiBPerMessage.toFixed(2)} MiB request)`,
    `- ${(r.messages / r.seconds).toFixed(1)} image messages/s`,
    '',
    table,
    '',
    `${flat ? 'PASS' : 'FAIL'}  RSS flat: ${first.toFixed(1)} MiB after warm-up, ${last.toFixed(1)} MiB after ${r.messages} ` +
      `(${last - first >= 0 ? '+' : ''}${(last - first).toFixed(1)} MiB; allowed +${allowed.toFixed(1)}), peak ${peak.toFixed(1)} MiB`,
  ].join('\n');
}

/** A process's resident set (/proc/<pid>/status VmRSS), MiB; NaN without /proc. */
function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** An HTTP server on a free port of 127.0.0.1. */
function listen(handler) {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.keepAliveTimeout = 30_000;
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
