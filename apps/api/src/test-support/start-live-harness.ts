import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createHub, type Hub } from '@switchboard/hub';
import { conversationKey } from '@switchboard/protocol';
import {
  eventually,
  type Handler,
  type LocalServer,
  type StreamScript,
  startOpenAIUpstream,
  streamingModel,
  testRedisUrl,
} from '@switchboard/testing';
import { Redis } from 'ioredis';
import { startGateway, type TestGateway } from './start-gateway.js';
import { spawnWorkerProcess, startTestWorker, type TestWorker } from './start-worker.js';

/**
 * What a live (streamed) hook needs end to end: a model that streams its answers slowly enough to
 * be seen being written, the real API, and real workers — in this process, or as child processes
 * a test can SIGKILL mid-stream. The platform is the test's own fake (packages/testing/platforms).
 */
export interface LiveHarness {
  gateway: TestGateway;
  upstream: LocalServer;
  /** The pipeline as the API sees it, for memory checks. */
  hub: Hub;
  /** How the model answers: `reply to: <prompt>` streamed in small chunks unless scripted. */
  script(prompt: string, plan: Partial<StreamScript>): void;
  /** A worker in this process (closed with the harness). */
  startWorker(): TestWorker;
  /**
   * A worker as its own process, once it takes jobs (listed as a worker in Redis): starting a
   * process loads the whole worker, seconds on a busy machine, which no test's bound should count.
   */
  spawnWorker(): Promise<ChildProcess>;
  post(hook: string, rawBody: string, headers?: Record<string, string>): Promise<Response>;
  /** The conversation's memory, as the next message would see it. */
  history(hook: string, conversation: string): Promise<{ role: string; content: string }[]>;
  modelCalls(prompt: string): number;
  close(): Promise<void>;
}

/** How long a spawned worker may take to start (20 ms each): 20 s, for a machine under load. */
const WORKER_START_ATTEMPTS = 1_000;

/** A promise the test resolves when it wants: the model holds its stream on it (`StreamScript.hold`). */
export function heldStream(): { hold: Promise<void>; release: () => void } {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { hold, release };
}

export async function startLiveHarness(options: {
  hooks: Record<string, Record<string, unknown>>;
  worker?: Record<string, unknown>;
  /** The model, instead of the scripted streaming one (`script` then does nothing). */
  model?: Handler;
  /** More configuration (e.g. `mcpServers`). */
  config?: Record<string, unknown>;
}): Promise<LiveHarness> {
  const scripts = new Map<string, Partial<StreamScript>>();
  const upstream = await startOpenAIUpstream(
    options.model ?? streamingModel((prompt) => ({ text: `reply to: ${prompt}`, ...scripts.get(prompt) })),
  );
  const gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
      hooks: options.hooks,
      worker: { attempts: 4, backoffMs: 50, lockMs: 1000, ...options.worker },
      ...options.config,
    },
  });
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const hub = createHub(redis, gateway.settings);
  const workers: TestWorker[] = [];
  const children: ChildProcess[] = [];
  return {
    gateway,
    upstream,
    hub,
    script: (prompt, plan) => scripts.set(prompt, plan),
    startWorker() {
      const worker = startTestWorker(gateway.settings);
      workers.push(worker);
      return worker;
    },
    async spawnWorker() {
      const before = await hub.queue.getWorkersCount();
      const child = spawnWorkerProcess({
        REDIS_URL: gateway.settings.redisUrl,
        SWITCHBOARD_REDIS_PREFIX: gateway.prefix,
        SWITCHBOARD_CONFIG: gateway.settings.configPath ?? '',
      });
      children.push(child);
      await eventually(async () => {
        if ((await hub.queue.getWorkersCount()) <= before) throw new Error('the spawned worker is not listed yet');
      }, WORKER_START_ATTEMPTS);
      return child;
    },
    post: (hook, rawBody, headers = {}) =>
      fetch(`${gateway.url}/hooks/${hook}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: rawBody,
      }),
    history: (hook, conversation) => hub.exchange.history(conversationKey(hook, conversation)),
    modelCalls: (prompt) =>
      upstream.requests.filter((r) => {
        const messages = (r.json as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
        return messages.at(-1)?.content === prompt;
      }).length,
    async close() {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'exit');
        }
      }
      for (const worker of workers) await worker.close();
      await hub.close();
      redis.disconnect();
      await gateway.close();
      await upstream.close();
    },
  };
}
