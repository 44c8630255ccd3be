import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from './eventually.js';
import { freePort } from './free-port.js';
import { type PrivateRedis, startPrivateRedis } from './private-redis.js';

export interface PrivateSentinel {
  /** The master Sentinel watches. */
  master: PrivateRedis;
  /** The master's name, as the sentinel knows it. */
  name: string;
  /** `redis-sentinel://127.0.0.1:<port>/<name>`, for REDIS_URL. */
  url: string;
  /** Stops the sentinel and the master (SIGKILL) and removes the sentinel's config file. */
  stop(): Promise<void>;
}

/**
 * A real Redis Sentinel (`redis-server --sentinel`, which needs a config file it may rewrite)
 * watching a private master, on free ports; it resolves once the sentinel names the master.
 */
export async function startPrivateSentinel(name = 'switchboard-test'): Promise<PrivateSentinel> {
  const master = await startPrivateRedis();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-sentinel-'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`, ''].join('\n'),
  );
  const child: ChildProcess = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    await master.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
  client.on('error', () => {});
  try {
    await eventually(
      async () => {
        if (client.status === 'wait' || client.status === 'end') await client.connect();
        const answer = await client.call('SENTINEL', 'get-master-addr-by-name', name);
        if (!Array.isArray(answer) || Number(answer[1]) !== master.port) {
          throw new Error(`the sentinel on port ${port} does not name ${name}`);
        }
      },
      200,
      25,
    );
  } catch (err) {
    await stop();
    throw err;
  } finally {
    client.disconnect();
  }
  return { master, name, url: `redis-sentinel://127.0.0.1:${port}/${name}`, stop };
}
