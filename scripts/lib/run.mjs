import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
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
 * `npm install` when node_modules is missing or older than the lockfile (it keeps what is there;
 * the lockfile is committed as npm writes it, every platform's optional binaries included, so
 * `npm ci` takes it too).
 *
 * @returns Whether the install rewrote package-lock.json (a lockfile out of step with package.json).
 */
export function ensureInstalled({ toStderr = false } = {}) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
  if (!stale && existsSync(bin('turbo')) && existsSync(bin('tsc'))) return false;
  const before = existsSync(lock) ? readFileSync(lock, 'utf8') : null;
  (toStderr ? console.error : console.log)('switchboard: installing dependencies (npm install)…');
  run('npm', ['install', '--no-audit', '--no-fund'], { toStderr });
  return before !== readFileSync(lock, 'utf8');
}

/** Builds every workspace (Turborepo caches what did not change). */
export function build({ toStderr = false } = {}) {
  run(bin('turbo'), ['run', 'build', '--output-logs=errors-only'], { env: { TURBO_TELEMETRY_DISABLED: '1' }, toStderr });
}

/**
 * Builds only when a workspace's build is missing or older than its inputs (turbo.json's: `src/`,
 * `package.json`, the tsconfig files). A cache hit is not free of side effects: Turborepo writes
 * every output again from its cache, and a process loading a module in that moment finds it
 * missing (`npm start` beside running apps, or beside the test suite, met ERR_MODULE_NOT_FOUND).
 */
export function buildIfStale(options) {
  if (buildIsStale()) build(options);
}

function buildIsStale() {
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      if (!existsSync(join(dir, 'tsconfig.build.json'))) continue;
      const built = newestMtime(join(dir, 'dist'));
      const inputs = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((entry) =>
        newestMtime(join(dir, entry)),
      );
      if (built === 0 || Math.max(...inputs) > built) return true;
    }
  }
  return false;
}

/** The newest modification time under `path` (a file, or a directory walked whole); 0 when absent. */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function tool(name, args, options) {
  run(bin(name), args, options);
}

/**
 * Starts independent checks at once, each its own child with its output held. `lowPriority`: each
 * runs at the lowest CPU priority (nice 19, inherited by what it starts), so it takes only the CPU
 * that nothing else on the machine wants.
 *
 * @param checks - `[cmd, args, env?]` each; a bare name is a tool in node_modules/.bin.
 * @returns Each check's `{ status, out, line }`, in the order given, once all are over.
 */
export function startAll(checks, { lowPriority = false } = {}) {
  return Promise.all(
    checks.map(([cmd, args, env]) => {
      const file = cmd.includes('/') ? cmd : bin(cmd);
      const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
      // Right after the fork, before the child can start anything of its own.
      if (lowPriority && child.pid !== undefined) {
        try {
          setPriority(child.pid, 19);
        } catch {
          // a platform that will not lower it: the check runs at normal priority
        }
      }
      const out = [];
      child.stdout.on('data', (chunk) => out.push(chunk));
      child.stderr.on('data', (chunk) => out.push(chunk));
      return new Promise((resolve) => {
        child.on('error', (err) =>
          resolve({ status: 1, out: [Buffer.from(`${err.message}\n`)], line: [cmd, ...args].join(' ') }),
        );
        child.on('close', (status) => resolve({ status, out, line: [cmd, ...args].join(' ') }));
      });
    }),
  );
}

/** Prints each check's output whole, in order, naming each that failed; returns whether all passed. */
export function reportAll(results) {
  let passed = true;
  for (const { status, out, line } of results) {
    process.stdout.write(Buffer.concat(out));
    if (status !== 0) {
      console.error(`switchboard: '${line}' failed`);
      passed = false;
    }
  }
  return passed;
}

/** Runs a Node script as a child with this terminal; `ipc: true` opens a message channel to it. */
export function spawnNode(script, env, { ipc = false } = {}) {
  const stdio = ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit';
  return spawn(process.execPath, [script], { cwd: root, stdio, env: { ...process.env, ...env } });
}
