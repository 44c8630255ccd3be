import { describeProviders, packageVersion, runEntryPoint, type Settings } from '@switchboard/config';

// The worker's modules are imported where `start` and `check` need them, once the settings are
// read: `--help`, `--version`, an unknown option and a configuration error found reading the
// settings exit without loading the gateway, the channels' delivery and BullMQ.

/** What shutdown may take beyond the grace period (releasing jobs, closing connections) before the process exits anyway. */
const EXIT_MARGIN_MS = 5_000;

/**
 * `npm run start:worker`: consume the inbound queue. SIGINT/SIGTERM: active jobs get
 * `worker.shutdownGraceMs` to finish, then go back to the queue; the process exits within that
 * plus five seconds, whatever Redis does.
 */
async function start(settings: Settings): Promise<void> {
  const [{ startTracing }, { closeWorkerDeps, createWorkerDeps }, { startMetricsServer }, { startWorker }] = await Promise.all([
    import('@switchboard/tracing'),
    import('./deps.js'),
    import('./metrics-server.js'),
    import('./worker.js'),
  ]);
  const tracing = settings.tracing
    ? await startTracing({
        endpoint: settings.tracing.endpoint,
        serviceName: settings.tracing.serviceName ?? 'switchboard-worker',
      })
    : undefined;
  const deps = createWorkerDeps(settings, { tracing });
  const running = startWorker(deps);
  const { concurrency, shutdownGraceMs, metricsPort, metricsHost } = settings.config.worker;
  deps.logger.info('worker started', { worker_id: running.heartbeat.id, pid: process.pid, concurrency });
  const metricsServer =
    deps.metrics && metricsPort
      ? await startMetricsServer(deps.metrics, {
          port: metricsPort,
          host: metricsHost,
          adminKeys: settings.config.adminKeys,
          apiKeysSet: settings.config.apiKeys.length > 0,
          logger: deps.logger,
        }).catch((err: NodeJS.ErrnoException) => {
          // The worker's job is answering messages: it goes on without a scrape target.
          deps.logger.warn('worker metrics server could not listen: metrics not served', {
            host: metricsHost,
            port: metricsPort,
            error: err.code ?? err.message,
          });
          return undefined;
        })
      : undefined;
  if (metricsServer) deps.logger.info('worker metrics listening', { url: metricsServer.url });
  deps.logger.info('providers', { default_model: settings.defaultModel, providers: describeProviders(settings) });
  for (const warning of settings.warnings) deps.logger.warn('configuration', { warning });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('worker stopping: finishing active jobs', { signal, grace_ms: shutdownGraceMs });
    // The last resort, should a step's own bound fail: the process never outlives grace + margin.
    setTimeout(() => {
      deps.logger.warn('worker shutdown took too long: exiting');
      process.exit(1);
    }, shutdownGraceMs + EXIT_MARGIN_MS).unref();
    await Promise.all([running.close(shutdownGraceMs), metricsServer?.close()]);
    await closeWorkerDeps(deps);
    deps.logger.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

void runEntryPoint({
  name: 'worker',
  command: 'node apps/worker/dist/main.js',
  summary:
    'Starts a Switchboard worker: it answers the hook messages queued in Redis (BullMQ) and delivers\nthe replies. Run as many as you like on one Redis.',
  version: packageVersion(new URL('../package.json', import.meta.url)),
  check: async (settings) => {
    const { createGateway } = await import('@switchboard/providers');
    await createGateway(settings).registry.close();
  },
  start,
});
