// The benches' child processes (the stand-in upstream, the gateway, workers, a private
// redis-server) and what it takes to start them, notice when one dies, and leave nothing behind:
// processes, temp files, Redis keys.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { request } from 'undici';

const STDERR_TAIL = 8 * 1024;

/**
 * A child process that remembers the end of its stderr and calls `onUnexpectedExit` if it
 * exits before `stop()` asked it to.
 */
export class Child {
  /**
   * @param {string} name shown in messages
   * @param {string[]} args node arguments (script last), or the arguments of `command`
   * @param {{ env: NodeJS.ProcessEnv, stdout: 'pipe' | 'ignore', onUnexpectedExit: (message: string) => void,
   *   command?: string }} options `command` defaults to this node binary
   */
  constructor(name, args, { env, stdout, onUnexpectedExit, command = process.execPath }) {
    this.name = name;
    this.stderrTail = '';
    this.stopping = false;
    // stdin stays an open pipe: the upstream exits when it closes, i.e. when the bench dies.
    this.process = spawn(command, args, { env, stdio: ['pipe', stdout, 'pipe'] });
    this.spawnError = null;
    this.process.stderr.setEncoding('utf8');
    this.process.stderr.on('data', (text) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
    });
    const report = (how) => {
      if (this.stopping) return;
      const tail = this.stderrTail.trim();
      onUnexpectedExit(`${name} ${how}${tail ? `; its stderr ends:\n${tail}` : ''}`);
    };
    // A command that cannot be started (not on PATH) emits 'error' and never 'exit'.
    this.exited = new Promise((resolve) => {
      this.process.once('exit', resolve);
      this.process.on('error', (err) => {
        if (this.process.pid !== undefined) return; // e.g. a failed kill: the exit still comes
        this.spawnError = err;
        resolve();
        report(`could not be started (${err.message})`);
      });
    });
    this.process.once('exit', (code, signal) => report(`exited unexpectedly (${signal ?? `code ${code}`})`));
  }

  /** For /proc/<pid>/stat. */
  get pid() {
    return this.process.pid;
  }

  get running() {
    return this.spawnError === null && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 5000) {
    this.stopping = true;
    if (!this.running) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Last resort from a synchronous `exit` handler. */
  killNow() {
    this.stopping = true;
    if (this.running) this.process.kill('SIGKILL');
  }
}

/** Resolves with the first line the child prints on stdout, as a port number. */
export async function readPort(child, timeoutMs = 10_000) {
  const lines = createInterface({ input: child.process.stdout });
  const timeout = sleep(timeoutMs).then(() => {
    throw new Error(`${child.name} did not print its port within ${timeoutMs} ms`);
  });
  const [line] = await Promise.race([once(lines, 'line'), timeout]);
  lines.close();
  child.process.stdout.resume(); // nothing else is expected, but never let the pipe fill
  const port = Number(line);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${child.name} printed '${line}' instead of a port`);
  return port;
}

/** A port nothing listens on right now (the gateway reads PORT, so it cannot take port 0). */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Polls GET /health until it answers 200. */
export async function waitForHealth(origin, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.running) {
    try {
      const response = await request(`${origin}/health`, { headersTimeout: 1000, bodyTimeout: 1000 });
      await response.body.dump();
      if (response.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${child.name} did not answer GET /health within ${timeoutMs} ms`);
}

/** Deletes every key under `<prefix>:` with SCAN + DEL; returns how many went. */
export async function deleteRedisKeys(redisUrl, prefix) {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => {}); // reported through the rejected command instead
  try {
    await redis.connect();
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/**
 * The stand-in upstream (upstream-server.mjs) as a child of this process, for benches that call it
 * themselves; its unexpected exit ends the process with code 1.
 * @returns {Promise<{ upstream: Child, port: number }>}
 */
export async function startUpstream(label) {
  const upstream = new Child('upstream', [new URL('./upstream-server.mjs', import.meta.url).pathname], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdout: 'pipe',
    onUnexpectedExit: (message) => {
      console.error(`${label}: ${message}`);
      process.exit(1);
    },
  });
  return { upstream, port: await readPort(upstream) };
}

/**
 * A bench script's scratch space: a temp directory and a list for the children it starts, both
 * gone when the process exits (Ctrl-C included); `fail(message)` prints and ends the run.
 * @param {string} name the script's name, in the directory's name and in `fail`'s message
 */
export function benchScratch(name) {
  const tempDir = mkdtempSync(join(tmpdir(), `switchboard-${name}-`));
  /** @type {{ killNow(): void }[]} */
  const children = [];
  const fail = (message) => {
    console.error(`${name}: ${message}`);
    process.exit(1);
  };
  process.on('exit', () => {
    for (const child of children) child.killNow();
    rmSync(tempDir, { recursive: true, force: true });
  });
  process.on('SIGINT', () => process.exit(130));
  return { tempDir, children, fail };
}
