import {
  answerText,
  deleteKeys,
  eventually,
  freePort,
  type LocalServer,
  lastUserText,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
  testPrefix,
  testRedisUrl,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { type SpawnedProcess, spawnApiProcess, spawnLoggingWorkerProcess } from './test-support/spawn-process.js';

/**
 * Scale-out on one Redis: two API processes take the messages, three worker processes answer
 * them, and one worker is SIGKILLed half-way. Every process is a real `dist/main.js`.
 */
const TOKEN = 'scale-out-token-0123456789';
const CONVERSATIONS = 200;
const PER_CONVERSATION = 25;
const TOTAL = CONVERSATIONS * PER_CONVERSATION;

interface Delivery {
  id: string;
  to: string;
  text: string;
  key: string;
}

let upstream: LocalServer;
let receiver: LocalServer;
const deliveries: Delivery[] = [];
const processes: SpawnedProcess[] = [];
const prefix = testPrefix();
let apis: string[] = [];

beforeAll(async () => {
  upstream = await startOpenAIUpstream((req, res) => answerText(req, res, `re: ${lastUserText(req)}`));
  receiver = await startLocalServer((req, res) => {
    const body = req.json as { id: string; to: string; text: string };
    deliveries.push({ id: body.id, to: body.to, text: body.text, key: String(req.headers['idempotency-key']) });
    sendJson(res, 200, { ok: true });
  });
  const config = configFile({
    defaultModel: 'up/m',
    providers: { up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
    hooks: { ops: { type: 'generic', token: TOKEN, replyUrl: `${receiver.url}/in`, stream: false } },
    worker: { concurrency: 4, attempts: 5, backoffMs: 50, lockMs: 2_000 },
  });
  const env = { REDIS_URL: testRedisUrl(), SWITCHBOARD_REDIS_PREFIX: prefix, SWITCHBOARD_CONFIG: config };
  const ports = [await freePort(), await freePort()];
  for (const port of ports) processes.push(spawnApiProcess({ ...env, PORT: String(port), LOG_LEVEL: 'info' }));
  for (let i = 0; i < 3; i++) processes.push(spawnLoggingWorkerProcess(env));
  await Promise.all(processes.slice(0, 2).map((api) => api.waitForOutput('api listening')));
  apis = ports.map((port) => `http://127.0.0.1:${port}`);
}, 60_000); // five processes starting at once on two cores: beside other work 30 s was seen too little

afterAll(async () => {
  for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await Promise.all(processes.map((proc) => proc.exited));
  await Promise.all([upstream?.close(), receiver?.close()]);
  await deleteKeys(prefix);
});

async function send(api: string, from: string, text: string): Promise<string> {
  const res = await fetch(`${api}/hooks/ops`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ from, text }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

describe('two API processes and three workers on one Redis', () => {
  it('delivers 5,000 messages of 200 conversations once each and in order, through a worker killed half-way', async () => {
    const accepted = new Map<string, { from: string; seq: number }>();
    const killed = (async () => {
      await eventually(() => expect(new Set(deliveries.map((d) => d.id)).size).toBeGreaterThanOrEqual(TOTAL / 3), 2_000, 25);
      processes[2]!.child.kill('SIGKILL');
    })();
    // Each conversation sends its messages one after another, alternating between the two APIs.
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, c) => {
        for (let seq = 0; seq < PER_CONVERSATION; seq++) {
          const from = `user-${c}`;
          accepted.set(await send(apis[(c + seq) % 2]!, from, `${from} #${seq}`), { from, seq });
        }
      }),
    );
    await killed;
    expect(accepted.size).toBe(TOTAL);

    const delivered = () => new Set(deliveries.map((d) => d.id));
    await eventually(() => expect(delivered().size).toBe(TOTAL), 2_400, 50);
    expect([...delivered()].filter((id) => !accepted.has(id))).toEqual([]);
    // A delivery in flight when the worker died may be sent again: only ever the same reply, same key.
    const first = new Map<string, Delivery>();
    for (const d of deliveries) {
      const seen = first.get(d.id);
      if (seen) expect({ text: d.text, key: d.key }).toEqual({ text: seen.text, key: seen.key });
      else first.set(d.id, d);
    }
    for (const [id, d] of first) {
      const { from, seq } = accepted.get(id)!;
      expect(d).toMatchObject({ to: from, text: `re: ${from} #${seq}`, key: id });
    }
    // Per conversation, replies arrived in the order the messages were sent.
    const order = new Map<string, number[]>();
    for (const d of first.values()) order.set(d.to, [...(order.get(d.to) ?? []), accepted.get(d.id)!.seq]);
    const outOfOrder = [...order].filter(([, seqs]) => seqs.some((seq, i) => seq !== i));
    expect(outOfOrder).toEqual([]);
    expect(order.size).toBe(CONVERSATIONS);

    // Both APIs read the same figures from Redis (counts are written within a second).
    const status = async (api: string) => (await fetch(`${api}/status`)).json();
    await eventually(
      async () => {
        const [a, b] = await Promise.all(apis.map(status));
        const ops = (s: { channels: { name: string; messages_in: number; messages_out: number }[] }) =>
          s.channels.find((c) => c.name === 'ops');
        expect(ops(a)).toMatchObject({ messages_in: TOTAL });
        // Counts are written once a second: the killed worker's last second of counting is lost
        // with it (the deliveries themselves are all checked above).
        expect(ops(a)!.messages_out).toBeGreaterThan(TOTAL / 2);
        expect(ops(a)!.messages_out).toBeLessThanOrEqual(TOTAL + 50);
        expect(a.queues.inbound).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: TOTAL });
        expect(a.workers.map((w: { pid: number }) => w.pid).sort()).toEqual(
          processes
            .slice(3)
            .map((p) => p.child.pid)
            .sort(),
        );
        expect({ channels: b.channels, queues: b.queues, workers: b.workers, sessions: b.active_sessions }).toEqual({
          channels: a.channels,
          queues: a.queues,
          workers: a.workers,
          sessions: a.active_sessions,
        });
      },
      400,
      50,
    );
  }, 240_000);
});
