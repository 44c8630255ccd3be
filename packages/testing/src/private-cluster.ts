import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

export interface PrivateCluster {
  /** The masters' `host:port` (as started: after a failover one of them is gone). */
  nodes: string[];
  /** Each master's replica's `host:port` (`replicas: 1`), in the order of `nodes`; else empty. */
  replicas: string[];
  /** `redis-cluster://host:port,…`, for REDIS_URL (the masters and the replicas). */
  url: string;
  /** SIGKILLs one node (`host:port`): its replica, if any, takes over once the others agree it failed. */
  kill(node: string): Promise<void>;
  /** Stops every node (SIGKILL: nothing is kept) and removes their files. */
  stop(): Promise<void>;
}

export interface PrivateClusterOptions {
  /** Replicas per master (0 or 1). @defaultValue 0 */
  replicas?: 0 | 1;
  /** `cluster-node-timeout`: how long a silent node takes to be marked failed (and its replica promoted). @defaultValue 3000 */
  nodeTimeoutMs?: number;
}

const SLOTS = 16384;

/**
 * A real Redis Cluster of `masters` masters (and a replica each with `replicas: 1`) from the local
 * `redis-server`, on free ports, for the test's own use: the slots are split evenly among the
 * masters (CLUSTER ADDSLOTSRANGE), the nodes meet, each replica follows its master (CLUSTER
 * REPLICATE, https://redis.io/docs/latest/commands/cluster-replicate/), and it resolves once every
 * node says `cluster_state:ok` and every replica's link to its master is up.
 */
export async function startPrivateCluster(masters = 3, options: PrivateClusterOptions = {}): Promise<PrivateCluster> {
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-'));
  const ports: { port: number; bus: number }[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) ports.push({ port: await freePort(), bus: await freePort() });
  const children: ChildProcess[] = ports.map(({ port, bus }) =>
    spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...[
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(bus),
          '--cluster-node-timeout',
          String(options.nodeTimeoutMs ?? 3000),
        ],
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
      if (i < masters) {
        const first = Math.floor((SLOTS * i) / masters);
        const last = Math.floor((SLOTS * (i + 1)) / masters) - 1;
        await client.call('CLUSTER', 'ADDSLOTSRANGE', first, last);
      }
      if (i > 0) await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', ports[i]!.port, ports[i]!.bus);
    }
    // Replica i follows master i, once it knows that master (the meeting spreads by gossip).
    for (let i = 0; i < masters * replicas; i++) {
      const masterId = String(await clients[i]!.call('CLUSTER', 'MYID'));
      await untilKnows(clients[masters + i]!, masterId);
      await clients[masters + i]!.call('CLUSTER', 'REPLICATE', masterId);
    }
    for (const client of clients) await untilClusterOk(client);
    for (const client of clients.slice(masters)) await untilReplicating(client);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    for (const client of clients) client.disconnect();
  }
  const all = ports.map(({ port }) => `127.0.0.1:${port}`);
  const kill = async (node: string) => {
    const child = children[all.indexOf(node)];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  return { nodes: all.slice(0, masters), replicas: all.slice(masters), url: `redis-cluster://${all.join(',')}`, kill, stop };
}

async function untilKnows(client: Redis, nodeId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (String(await client.call('CLUSTER', 'NODES')).includes(nodeId)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('a replica never learnt of its master');
}

async function untilReplicating(client: Redis): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (String(await client.info('replication')).includes('master_link_status:up')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('a replica never caught up with its master');
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
