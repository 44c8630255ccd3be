import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * Runs a command in the repo root, inheriting stdio (`toStderr`: its output goes to stderr, so
 * stdout stays the caller's); exits the process if it fails.
 */
export function run(cmd, args, { env, toStderr = false } = {}) {
  const stdio = toStderr ? ['inherit', 2, 2] : 'inherit';
  const result = spawnSync(cmd, args, { cwd: root, stdio, env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`switchboard: '${[cmd, ...args].join(' ')}' failed`);
    process.exit(result.status ?? 1);
  }
}

/**
 * `npm install` when node_modules is missing or older than the lockfile. Not `npm ci`: npm 11
 * refuses it when the lockfile lacks other platforms' optional binaries (biome, turbo), which it
 * leaves out when the lockfile is written on Linux; `npm install` honours the lockfile the same.
 */
export function ensureInstalled({ toStderr = false } = {}) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
  if (!stale && existsSync(bin('turbo')) && existsSync(bin('tsc'))) return;
  (toStderr ? console.error : console.log)('switchboard: installing dependencies (npm install)…');
  run('npm', ['install', '--no-audit', '--no-fund'], { toStderr });
}

/** Builds every workspace (Turborepo caches what did not change). */
export function build({ toStderr = false } = {}) {
  run(bin('turbo'), ['run', 'build', '--output-logs=errors-only'], { env: { TURBO_TELEMETRY_DISABLED: '1' }, toStderr });
}

export function tool(name, args, options) {
  run(bin(name), args, options);
}

/** Runs a Node script as a child with this terminal; `ipc: true` opens a message channel to it. */
export function spawnNode(script, env, { ipc = false } = {}) {
  const stdio = ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit';
  return spawn(process.execPath, [script], { cwd: root, stdio, env: { ...process.env, ...env } });
}
