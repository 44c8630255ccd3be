// A redis-server of the bench's own (free port, no persistence), as a child process so that its
// CPU can be read from /proc, and what the bench reads from it: commands processed so far.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Child, freePort } from './children.mjs';

/**
 * Starts `redis-server` on a free 127.0.0.1 port, with nothing saved (`--save ""`, no AOF) and
 * its working directory in `dir`, and resolves once it answers PING.
 * @param {{ dir: string, onUnexpectedExit: (message: string) => void, timeoutMs?: number }} options
 * @returns {Promise<{ child: Child, url: string }>}
 */
export async function startRedisServer({ dir, onUnexpectedExit, timeoutMs = 10_000 }) {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = new Child('redis-server', args, {
    command: 'redis-server',
    env: process.env,
    stdout: 'ignore',
    onUnexpectedExit,
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.running) {
    if (await answersPing(url)) return { child, url };
    await sleep(50);
  }
  await child.stop();
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

async function answersPing(url) {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Reads the server's command counters and used memory with one `INFO stats commandstats memory`
 * each time, and takes its own INFO calls out again, so that a delta is what the measured
 * processes sent.
 * Commands run inside Lua scripts (BullMQ does almost everything in scripts) count too: Redis
 * counts every `redis.call` in `total_commands_processed`, as the script call itself.
 */
export class RedisCounters {
  /** @param {string} url */
  constructor(url) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.redis.on('error', () => {}); // a failing read rejects; that is reported where it is awaited
    this.infoCalls = 0;
  }

  /**
   * Counters so far: `commands` (all, scripts' inner commands included) and `scripts` (EVAL,
   * EVALSHA and FCALL calls: client round trips that run a script). Both exclude this reader's INFOs.
   * @returns {Promise<{ commands: number, scripts: number }>}
   */
  async read() {
    // The reply counts the INFOs before this one, not this one; each is one command.
    const ownBefore = this.infoCalls++;
    const text = await this.redis.info('stats', 'commandstats', 'memory');
    const total = Number(/^total_commands_processed:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
    const usedMemory = Number(/^used_memory:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
    let scripts = 0;
    /** @type {Record<string, number>} calls per command name (`info` includes the bench's own) */
    const byCommand = {};
    for (const [, name, calls] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      byCommand[name] = Number(calls);
      if (/^(?:eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/.test(name)) scripts += Number(calls);
    }
    byCommand.info = (byCommand.info ?? 0) - ownBefore;
    return { commands: total - ownBefore, scripts, usedMemory, byCommand };
  }

  /** Empties the server between the two systems, so the second does not start on the first's keys. */
  async flush() {
    this.infoCalls++; // not an INFO, but one command of the bench's own all the same
    await this.redis.flushall();
  }

  close() {
    this.redis.disconnect();
  }
}
