import { loadSettingsOrExit } from '@switchboard/config';
import { createDeps } from './deps.js';
import { startServer } from './server.js';

/** `npm run start:api`: load config, listen, drain on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit(process.env);
  const deps = createDeps(settings);
  const running = await startServer(deps, settings.port, settings.host);
  deps.logger.info('api listening', { url: running.url, default_model: settings.defaultModel });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('api stopping', { signal });
    await running.close(settings.drainMs);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error('switchboard: api failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
