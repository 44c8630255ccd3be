import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { describeSettings } from './describe-settings.js';
import type { Env } from './interpolate.js';
import { exitOnConfigError, loadSettings, type Settings } from './settings.js';

/** One of the two programs (`apps/api/dist/main.js`, `apps/worker/dist/main.js`). */
export interface EntryPoint {
  /** `api` or `worker`, for the line that says it failed. */
  name: string;
  /** How to run it, for the usage line: `node apps/api/dist/main.js`. */
  command: string;
  /** What it does, one or two sentences. */
  summary: string;
  version: string;
  /**
   * What `--check` does beyond reading the settings: build what they name (the model table, the
   * fallbacks), throwing a `ConfigError` for anything that would stop start-up.
   */
  check(settings: Settings): void | Promise<void>;
  start(settings: Settings): Promise<void>;
}

/** EX_USAGE from sysexits.h: an option the program does not know. */
const EXIT_USAGE = 64;

function usage(entry: EntryPoint): string {
  return `Usage: ${entry.command} [--check | --help | --version]

${entry.summary}

  --check    validate the configuration and print the effective providers, models, hooks and
             limits (secrets masked); exit 0 when it is valid, 78 when it is not
  --help     print this help
  --version  print the version

Configured by the environment (PORT, HOST, REDIS_URL, SWITCHBOARD_CONFIG, LOG_LEVEL…) and the
config file SWITCHBOARD_CONFIG names: see docs/configuration.md.
Exit codes: 0 stopped cleanly, 1 failed, 64 bad option, 78 configuration error.
`;
}

/**
 * Runs an entry point: `--help`, `--version`, `--check`, or start. Any configuration error,
 * found reading the settings or building what they name, exits 78 with one line naming the key;
 * any other failure to start exits 1 with one line saying what it was.
 */
export async function runEntryPoint(entry: EntryPoint, argv = process.argv.slice(2), env: Env = process.env): Promise<void> {
  try {
    await run(entry, argv, env);
  } catch (err) {
    exitOnConfigError(err);
    console.error(`switchboard: ${entry.name} failed to start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

async function run(entry: EntryPoint, argv: string[], env: Env): Promise<void> {
  let values: { check?: boolean; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`switchboard: ${(err as Error).message}\n\n${usage(entry)}`);
    process.exit(EXIT_USAGE);
  }
  if (values.help) return void process.stdout.write(usage(entry));
  if (values.version) return void process.stdout.write(`${entry.version}\n`);
  const settings = loadSettings(env);
  if (!values.check) return entry.start(settings);
  await entry.check(settings);
  for (const warning of settings.warnings) process.stderr.write(`switchboard: warning: ${warning}\n`);
  process.stdout.write(`# switchboard: the configuration is valid\n${stringify(describeSettings(settings))}`);
}

/** The `version` of the package.json at `url` (an app's own), or 0.0.0 when it cannot be read. */
export function packageVersion(url: URL): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(url, 'utf8'));
    return pkg && typeof pkg === 'object' && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
