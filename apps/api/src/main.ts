import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { describeProviders, packageVersion, runEntryPoint, type Settings } from '@switchboard/config';

// The app's modules are imported where `start` and `check` need them, once the settings are read:
// `--help`, `--version`, an unknown option and a configuration error found reading the settings
// exit without loading the gateway, the routes and BullMQ (`--version` took 2.4 s of CPU with
// everything imported up front, 0.8 s now: the settings' schema and the channel registry).

/** What shutdown may take beyond the drain (closing pools and Redis) before the process exits anyway. */
const EXIT_MARGIN_MS = 5_000;

/** `npm run start:api`: listen; on SIGINT/SIGTERM drain in-flight requests (bounded) and exit 0. */
const version = packageVersion(new URL('../package.json', import.meta.url));

async function start(settings: Settings): Promise<void> {
  if (settings.apiProcesses > 1 && cluster.isPrimary) {
    const [{ createLogger }, { superviseApiProcesses }] = await Promise.all([
      import('@switchboard/logger'),
      import('./api-processes.js'),
    ]);
    const logger = createLogger({ level: settings.logLevel, secrets: settings.secrets, defaultMeta: { service: 'api' } });
    return superviseApiProcesses(settings, logger, fileURLToPath(import.meta.url));
  }
  const [{ startTracing }, { createDeps }, { startServer }] = await Promise.all([
    import('@switchboard/tracing'),
    import('./deps.js'),
    import('./server.js'),
  ]);
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
    const [{ createGateway }, { checkMcpServers }] = await Promise.all([
      import('@switchboard/providers'),
      import('./mcp-check.js'),
    ]);
    await createGateway(settings).registry.close();
    await checkMcpServers(settings, (line) => process.stdout.write(`${line}\n`));
  },
  start,
});
