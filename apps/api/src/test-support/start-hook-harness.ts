import type { ChannelStatus } from '@switchboard/state';
import {
  answerText,
  type Handler,
  type LocalServer,
  lastUserText,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import { startGateway, type TestGateway } from './start-gateway.js';
import { startTestWorker, type TestWorker } from './start-worker.js';

/**
 * Everything a platform hook needs end to end: a model upstream, a local server standing in for
 * the platform's API, the real API with the hooks pointed at that server, and a real worker.
 */

/**
 * A model whose reply shows what it saw: `reply to: <last user text> (history: N)`, N being the
 * earlier conversation messages it was sent. A prompt listed in `replies` gets that text instead.
 */
export function revealingModel(replies: Record<string, string> = {}): Handler {
  return (req, res) => {
    const body = req.json as { model: string; messages: { role: string }[] };
    const prompt = lastUserText(req);
    const history = body.messages.filter((m) => m.role !== 'system').length - 1;
    const reply = Object.hasOwn(replies, prompt) ? replies[prompt]! : `reply to: ${prompt} (history: ${history})`;
    answerText(req, res, reply);
  };
}

export interface HookHarnessOptions {
  /** The hooks under test, by name, given the local platform server's URL. */
  hooks: (platformUrl: string) => Record<string, Record<string, unknown>>;
  /** How the local platform server answers; `reset()` brings it back. */
  platform: Handler;
  /** Canned model replies by prompt, for replies too long for one platform message. */
  replies?: Record<string, string>;
  /** More configuration (e.g. `adminKeys`). */
  config?: Record<string, unknown>;
}

export interface HookHarness {
  upstream: LocalServer;
  platform: LocalServer;
  gateway: TestGateway;
  worker: TestWorker;
  /** POSTs `rawBody` as is, UTF-8 (signatures are over those bytes), to `/hooks/<hook>` as JSON. */
  post(hook: string, rawBody: string, headers?: Record<string, string>): Promise<Response>;
  /** The hook's entry in GET /status. */
  channel(hook: string): Promise<ChannelStatus>;
  /** GET /status's `queues.inbound` counts. */
  queue(): Promise<{ waiting: number; active: number; delayed: number; failed: number; completed: number }>;
  /** How often the model was asked `prompt`. */
  modelCalls(prompt: string): number;
  /**
   * Makes the model wait until the returned function is called, so a test can see what happens
   * before any reply exists. `reset()` releases it too.
   */
  holdModel(): () => void;
  /** Restores the model and platform handlers (call it in `afterEach`). */
  reset(): void;
  close(): Promise<void>;
}

/** Worker settings that let retries run within a test: four attempts, 50 ms first back-off. */
export const TEST_WORKER_CONFIG = { attempts: 4, backoffMs: 50, lockMs: 2000 };

export async function startHookHarness(options: HookHarnessOptions): Promise<HookHarness> {
  const model = revealingModel(options.replies);
  const upstream = await startOpenAIUpstream(model);
  const platform = await startLocalServer(options.platform);
  const gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
      hooks: options.hooks(platform.url),
      worker: TEST_WORKER_CONFIG,
      ...options.config,
    },
  });
  const worker = startTestWorker(gateway.settings);
  let held: (() => void)[] = [];

  const status = async () => {
    const res = await fetch(`${gateway.url}/status`);
    if (res.status !== 200) throw new Error(`GET /status answered ${res.status}`);
    return res.json();
  };

  return {
    upstream,
    platform,
    gateway,
    worker,
    post: (hook, rawBody, headers = {}) =>
      fetch(`${gateway.url}/hooks/${hook}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: rawBody,
      }),
    async channel(hook) {
      const channel = (await status()).channels.find((c: ChannelStatus) => c.name === hook);
      if (!channel) throw new Error(`GET /status does not list the hook '${hook}'`);
      return channel;
    },
    queue: async () => (await status()).queues.inbound,
    modelCalls: (prompt) => upstream.requests.filter((r) => lastUserText(r) === prompt).length,
    holdModel() {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      held.push(release);
      upstream.handle(async (req, res, raw) => {
        await released;
        await model(req, res, raw);
      });
      return release;
    },
    reset() {
      for (const release of held) release();
      held = [];
      upstream.handle(model);
      platform.handle(options.platform);
    },
    async close() {
      for (const release of held) release();
      await worker.close();
      await gateway.close();
      await upstream.close();
      await platform.close();
    },
  };
}
