import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { describeProviders, packageVersion, runEntryPoint, type Settings } from '@switchboard/config';
import { createLogger } from '@switchboard/logger';
import { createGateway } from '@switchboard/providers';
import { startTracing } from '@switchboard/tracing';
import { superviseApiProcesses } from './api-processes.js';
import { createDeps } from './deps.js';
import { checkMcpServers } from './mcp-check.js';
import { startServer } from './server.js';

/** What shutdown may take beyond the drain (closing pools and Redis) before the process exits anyway. */
const EXIT_MARGIN_MS = 5_000;

/** `npm run start:api`: listen; on SIGINT/SIGTERM drain in-flight requests (bounded) and exit 0. */
const version = packageVersion(new URL('../package.json', import.meta.url));

async function start(settings: Settings): Promise<void> {
  if (settings.apiProcesses > 1 && cluster.isPrimary) {
    const logger = createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'api' } });
    return superviseApiProcesses(settings, logger, fileURLToPath(import.meta.url));
  }
  const tracing = settings.tracing
    ? await startTracing({ endpoint: settings.tracing.endpoint, serviceName: settings.tracing.serviceName ?? 'switchboard-api' })
    : undefined;
  const deps = createDeps(settings, { version, tracing });
  const running = await startServer(deps, settings.port, settings.host).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') throw err;
    const why = err.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied';
    console.error(
      `switchboard: the API cannot listen on ${settings.host}:${settings.port}: ${why}. Stop what uses it, or set PORT.`,
    );
    process.exit(1);
  });
  deps.logger.info('api listening', { url: running.url, pid: process.pid, version, default_model: settings.defaultModel });
  deps.logger.info('providers', { default_model: settings.defaultModel, providers: describeProviders(settings) });
  for (const warning of settings.warnings) deps.logger.warn('configuration', { warning });
  // `npm start` (scripts/start.mjs) waits for this, not for any answer on the port: another
  // process answering there must never pass for this one. Under API_PROCESSES the supervisor
  // waits for it from each process. (A process whose supervisor dies exits: node:cluster.)
  if (process.send) {
    process.send({ type: 'listening', url: running.url });
    process.channel?.unref(); // the channel must not keep the process alive
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('api stopping', { signal, drain_ms: settings.drainMs });
    setTimeout(() => {
      deps.logger.warn('api shutdown took too long: exiting');
      process.exit(1);
    }, settings.drainMs + EXIT_MARGIN_MS).unref();
    await running.close(settings.drainMs);
    deps.logger.info('api stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

void runEntryPoint({
  name: 'api',
  command: 'node apps/api/dist/main.js',
  summary:
    'Starts the Switchboard API: the OpenAI-compatible /v1, the /hooks webhooks, /health, /ready and\n/status, on HOST:PORT (default 127.0.0.1:8080).',
  version,
  check: async (settings) => {
    await createGateway(settings).registry.close();
    await checkMcpServers(settings, (line) => process.stdout.write(`${line}\n`));
  },
  start,
});
