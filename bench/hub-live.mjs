// The hub bench's live-reply scenario: the same Telegram message answered whole (`stream: false`)
// and live (`stream: true`, the default), by the built API and worker, with a model that thinks
// and then writes (bench/upstream-server.mjs, model `paced`) and a fake Telegram Bot API in this
// process (packages/testing: enforces Telegram's limits). Each message goes to a group chat of its
// own, so no limiter turn delays its first text. Measured: when the first text becomes visible
// (the first sendMessage), against the model's own time to first token; worker CPU per message;
// platform calls per message.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { markdownToTelegramHtml } from '../packages/channels/dist/index.js';
import { startFakeTelegram, visibleTelegramHtml } from '../packages/testing/dist/index.js';
import { freePort, readPort, waitForHealth } from './children.mjs';
import { machineBusyMs, processCpuMs } from './cpu.mjs';
import { switchboardEnv } from './env.mjs';
import { API_KEY, PACED_TEXT } from './fixture.mjs';

const BOT_TOKEN = '110201543:AAHbenchBenchBenchBenchBench012345';
const SECRET = 'bench-telegram-secret';

/**
 * @param {{ here: string, tempDir: string, redisUrl: string, spawnChild: Function, apiMain: string, workerMain: string,
 *   messages: number, warmup: number, inflight: number, concurrency: number, ttftMs: number, tokenMs: number,
 *   intervalMs: number, logLevel: string, timeoutMs: number, workerNodeArgs: string[] }} o
 */
export async function liveScenario(o) {
  const upstream = o.spawnChild(
    'paced upstream',
    [join(o.here, 'upstream-server.mjs')],
    {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      BENCH_PACED_TTFT_MS: String(o.ttftMs),
      BENCH_PACED_TOKEN_MS: String(o.tokenMs),
    },
    'pipe',
  );
  const upstreamPort = await readPort(upstream);
  /** last user text → { arrived, firstToken } (epoch ms, the upstream's clock: same machine) */
  const firstTokens = new Map();
  createInterface({ input: upstream.process.stdout }).on('line', (line) => {
    const match = /^first-token (\S+) (\S+) (.*)$/.exec(line);
    if (match) firstTokens.set(JSON.parse(match[3]), { arrived: Number(match[1]), firstToken: Number(match[2]) });
  });
  // Real limits: one chat per message, so no turn waits; the fake still enforces them.
  const telegram = await startFakeTelegram({ botToken: BOT_TOKEN });

  const configPath = join(o.tempDir, 'live.json');
  const hook = { type: 'telegram', botToken: BOT_TOKEN, secretToken: SECRET, apiUrl: telegram.url, model: 'bench/paced' };
  writeFileSync(
    configPath,
    JSON.stringify({
      defaultModel: 'bench/paced',
      providers: {
        bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, apiKey: API_KEY, models: ['paced'] },
      },
      hooks: { live: { ...hook, streamIntervalMs: o.intervalMs }, whole: { ...hook, stream: false } },
      worker: { concurrency: o.concurrency },
    }),
  );
  const env = (port) => switchboardEnv({ port, configPath, redisUrl: o.redisUrl, prefix: 'live', logLevel: o.logLevel });
  const apiPort = await freePort();
  const api = o.spawnChild('api (live)', [o.apiMain], env(apiPort), 'ignore');
  await waitForHealth(`http://127.0.0.1:${apiPort}`, api);
  const worker = o.spawnChild('worker (live)', [...o.workerNodeArgs, o.workerMain], env(undefined), 'ignore');

  let nextChat = 10_000;
  let updateId = 1;
  // What the chat shows once the reply is complete: whole and live replies alike are sent as HTML.
  const shown = visibleTelegramHtml(markdownToTelegramHtml(PACED_TEXT));
  const expected = { live: shown, whole: shown };

  /** Sends one message to `hookName` in a chat of its own; resolves when the chat shows the whole reply. */
  async function one(hookName, text) {
    const chatId = -nextChat++;
    const update = {
      update_id: updateId++,
      message: {
        message_id: 1,
        from: { id: 5, is_bot: false, first_name: 'B' },
        chat: { id: chatId, type: 'group' },
        date: 1,
        text,
      },
    };
    const res = await fetch(`http://127.0.0.1:${apiPort}/hooks/${hookName}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify(update),
    });
    if (res.status !== 200) throw new Error(`hook answered ${res.status}`);
    const deadline = Date.now() + o.timeoutMs;
    while (Date.now() < deadline) {
      const [message] = telegram.chat(chatId);
      if (message && message.text === expected[hookName]) return chatId;
      await sleep(10);
    }
    throw new Error(`no complete reply in chat ${chatId} within ${o.timeoutMs} ms`);
  }

  const cpuOf = (child) => processCpuMs(child.pid);
  const sample = () => {
    const own = process.cpuUsage();
    return {
      at: Date.now(),
      worker: cpuOf(worker),
      api: cpuOf(api),
      upstream: cpuOf(upstream),
      bench: (own.user + own.system) / 1000,
      machine: machineBusyMs(),
    };
  };

  /** `count` messages, `inflight` at a time, each waiting for its whole reply. */
  async function phase(hookName, count) {
    const chats = [];
    let issued = 0;
    await Promise.all(
      Array.from({ length: o.inflight }, async () => {
        while (issued < count) {
          const i = issued++;
          const text = `${hookName} ${i} ${Math.random().toString(36).slice(2, 8)}`;
          chats.push({ text, chatId: await one(hookName, text) });
        }
      }),
    );
    return chats;
  }

  async function measured(hookName) {
    const first = sample();
    const chats = await phase(hookName, o.messages);
    const last = sample();
    const n = chats.length;
    const spent = (name) => last[name] - first[name];
    const ours = spent('worker') + spent('api') + spent('upstream') + spent('bench');
    await sleep(200); // the last final edits land before calls are counted
    const ids = new Set(chats.map((c) => c.chatId));
    const calls = telegram.calls.filter((c) => ids.has(Number(c.body.chat_id)));
    const firstVisible = chats.map(({ text, chatId }) => {
      const tokens = firstTokens.get(text);
      const sent = calls.find((c) => Number(c.body.chat_id) === chatId && c.method === 'sendMessage' && c.status === 200);
      return tokens && sent ? { ttft: tokens.firstToken - tokens.arrived, visible: sent.at - tokens.arrived } : null;
    });
    return {
      messages: n,
      elapsedMs: last.at - first.at,
      cpuMsPerMessage: {
        worker: spent('worker') / n,
        api: spent('api') / n,
        upstream: spent('upstream') / n,
        bench: spent('bench') / n,
      },
      otherCores: (spent('machine') - ours) / (last.at - first.at),
      callsPerMessage: calls.length / n,
      callsByMethod: countBy(calls.map((c) => c.method)),
      refused: calls.filter((c) => c.status === 429).length,
      firstVisible: firstVisible.filter(Boolean),
    };
  }

  try {
    await phase('whole', o.warmup);
    await phase('live', o.warmup);
    const whole = await measured('whole');
    const live = await measured('live');
    return { whole, live, options: o };
  } finally {
    await telegram.close();
  }
}

function countBy(values) {
  const counts = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
