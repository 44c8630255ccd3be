import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadSettings, type Settings } from '@switchboard/config';
import { createLogger } from '@switchboard/logger';
import { redisReady } from '@switchboard/state';
import { deleteKeys, testPrefix, testRedisUrl } from '@switchboard/testing';
import { startTracing } from '@switchboard/tracing';
import { createDeps } from '../deps.js';
import { type RunningServer, startServer } from '../server.js';

export interface TestGateway {
  url: string;
  /** `{url}/v1`, for the openai client's `baseURL`. */
  baseURL: string;
  settings: Settings;
  prefix: string;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  rawLogs: string[];
  running: RunningServer;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Reuse another gateway's prefix (several API processes on one Redis). */
  prefix?: string;
}

/** The real app on a free port, with its own Redis key prefix and captured logs. */
export async function startGateway(options: StartOptions = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const configPath = join(dir, 'config.json');
  // Credential checks would call the tests' platform servers at start-up: only the tests of the
  // checks turn them on.
  writeFileSync(configPath, JSON.stringify({ health: { channelCheckMs: 0 }, ...options.config }));
  const prefix = options.prefix ?? testPrefix();
  const settings = loadSettings({
    REDIS_URL: testRedisUrl(),
    SWITCHBOARD_CONFIG: configPath,
    SWITCHBOARD_REDIS_PREFIX: prefix,
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        rawLogs.push(line);
        logs.push(JSON.parse(line));
      }
      done();
    },
  });
  const logger = createLogger({ level: settings.logLevel, secrets: settings.secrets, stream });
  // As main.ts does: the SDK only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = settings.tracing
    ? await startTracing({ endpoint: settings.tracing.endpoint, serviceName: settings.tracing.serviceName ?? 'switchboard-api' })
    : undefined;
  const deps = createDeps(settings, { logger, tracing });
  const running = await startServer(deps, 0, '127.0.0.1');
  await redisReady(deps.redis, 2_000); // as a long-running process would be; false when Redis is away on purpose
  return {
    url: running.url,
    baseURL: `${running.url}/v1`,
    settings,
    prefix,
    logs,
    rawLogs,
    running,
    async close() {
      await running.close(1_000);
      if (!options.prefix) await deleteKeys(prefix, settings.redisUrl);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { eventually } from '@switchboard/testing';

/**
 * Rate limits count in one-minute windows: a test that spends a budget waits, when the current
 * window is about to end, for the next one, so its requests all fall in one window.
 */
export async function awayFromRateWindowEdge(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
