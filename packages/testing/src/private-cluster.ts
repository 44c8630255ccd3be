import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export interface PrivateCluster {
  /** The masters' `host:port`. */
  nodes: string[];
  /** `redis-cluster://host:port,…`, for REDIS_URL. */
  url: string;
  /** Stops every node (SIGKILL: nothing is kept) and removes their files. */
  stop(): Promise<void>;
}

const SLOTS = 16384;

/**
 * A real Redis Cluster of `masters` masters (no replicas) from the local `redis-server`, on free
 * ports, for the test's own use: the slots are split evenly (CLUSTER ADDSLOTSRANGE), the nodes
 * meet, and it resolves once every node says `cluster_state:ok`.
 */
export async function startPrivateCluster(masters = 3): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-'));
  const ports: { port: number; bus: number }[] = [];
  for (let i = 0; i < masters; i++) ports.push({ port: await freePort(), bus: await freePort() });
  const children: ChildProcess[] = ports.map(({ port, bus }) =>
    spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-port', String(bus), '--cluster-node-timeout', '3000'],
        ...['--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir],
      ],
      { stdio: 'ignore' },
    ),
  );
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const clients = ports.map(({ port }) => new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true }));
  // Refused connections are expected while the servers start; untilAnswers retries them.
  for (const client of clients) client.on('error', () => {});
  try {
    for (const client of clients) await untilAnswers(client);
    for (const [i, client] of clients.entries()) {
      const first = Math.floor((SLOTS * i) / masters);
      const last = Math.floor((SLOTS * (i + 1)) / masters) - 1;
      await client.call('CLUSTER', 'ADDSLOTSRANGE', first, last);
      if (i > 0) await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', ports[i]!.port, ports[i]!.bus);
    }
    for (const client of clients) await untilClusterOk(client);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    for (const client of clients) client.disconnect();
  }
  const nodes = ports.map(({ port }) => `127.0.0.1:${port}`);
  return { nodes, url: `redis-cluster://${nodes.join(',')}`, stop };
}

async function untilAnswers(client: Redis): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if (client.status === 'wait' || client.status === 'end') await client.connect();
      await client.ping();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  throw new Error('a cluster node never answered PING');
}

async function untilClusterOk(client: Redis): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const info = String(await client.call('CLUSTER', 'INFO'));
    if (info.includes('cluster_state:ok')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the cluster never reached cluster_state:ok');
}
