import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface PrivateRedis {
  port: number;
  url: string;
  /** Whether the redis-server process is running. */
  readonly up: boolean;
  /** Starts redis-server on `port` (again) and resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGKILLs redis-server: an outage, not a shutdown; nothing is saved. */
  kill(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, without persistence, so a test can take it
 * down and bring it back while the shared Redis (which other processes use) is never touched.
 * Its working directory is a temporary one of its own (removed when it is killed): a replica's full
 * sync writes an RDB file there, which a server started in the repository would write to (and the
 * next one started there would load).
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = join(tmpdir(), `switchboard-redis-${port}-${process.pid}`);
  let child: ChildProcess | null = null;
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get up() {
      return child !== null;
    },
    async start() {
      if (child) return;
      mkdirSync(dir, { recursive: true });
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 200 && !(await answersPing(port)); i++) await new Promise((r) => setTimeout(r, 25));
      if (!(await answersPing(port))) throw new Error(`redis-server on port ${port} did not answer PING`);
    },
    async kill() {
      const running = child;
      if (!running) return;
      child = null;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}

/** One PING over a raw connection (RESP), so no client library reconnects behind our back. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
