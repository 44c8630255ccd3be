import { ConfigError } from '@switchboard/protocol';

/** Where Redis is: one server, a Redis Cluster, or a master found through Redis Sentinel. */
export type RedisTarget =
  | { mode: 'single'; url: string }
  | { mode: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean }
  | {
      mode: 'sentinel';
      sentinels: RedisNode[];
      /** The master's name, as the sentinels know it. */
      name: string;
      username?: string;
      password?: string;
      db: number;
      tls: boolean;
    };

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Reads `REDIS_URL`:
 * - `redis://[user:pass@]host:port[/db]` (or `rediss://` for TLS): one server;
 * - `redis-cluster://[user:pass@]host:port,host:port,…` (or `rediss-cluster://`): a Redis Cluster,
 *   found through any of the nodes listed;
 * - `redis-sentinel://[user:pass@]host:port,host:port,…/<master name>[/db]` (or
 *   `rediss-sentinel://`): the master that Redis Sentinel names.
 *
 * @param cluster - The config file's `redis.cluster` nodes (`host:port`), which make it a cluster.
 * @throws ConfigError naming `REDIS_URL` (or `redis.cluster`) when it cannot be read.
 */
export function parseRedisTarget(url: string, cluster: string[] = []): RedisTarget {
  if (cluster.length) {
    const auth = /^rediss?:\/\//.test(url) ? credentials(new URL(url)) : {};
    return { mode: 'cluster', nodes: cluster.map((node, i) => parseNode(node, `redis.cluster[${i}]`)), ...auth, tls: false };
  }
  const scheme = /^([a-z-]+):\/\//.exec(url)?.[1];
  if (scheme === 'redis' || scheme === 'rediss') return { mode: 'single', url };
  const multi = /^(rediss?)-(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/]+)(\/.*)?$/.exec(url);
  if (!multi) {
    throw new ConfigError(
      `REDIS_URL: '${redact(url)}' is not redis://, rediss://, redis-cluster://host:port,… or redis-sentinel://host:port,…/<master>`,
    );
  }
  const [, base, kind, userinfo, hosts, path] = multi as unknown as [
    string,
    string,
    string,
    string | undefined,
    string,
    string | undefined,
  ];
  const tls = base === 'rediss';
  const auth = userinfo ? credentials(new URL(`redis://${userinfo}@x`)) : {};
  const nodes = hosts.split(',').map((node, i) => parseNode(node, `REDIS_URL (host ${i + 1})`));
  if (kind === 'cluster') return { mode: 'cluster', nodes, ...auth, tls };
  const [name, db = '0'] = (path ?? '').split('/').filter(Boolean);
  if (!name) throw new ConfigError('REDIS_URL: a redis-sentinel:// URL names the master after the hosts: …/<master name>');
  if (!/^\d{1,2}$/.test(db)) throw new ConfigError(`REDIS_URL: '${db}' is not a database number`);
  return { mode: 'sentinel', sentinels: nodes, name: decodeURIComponent(name), ...auth, db: Number(db), tls };
}

function parseNode(node: string, where: string): RedisNode {
  const match = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(node.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) throw new ConfigError(`${where}: '${node}' is not host:port`);
  return { host: match[1]!, port };
}

function credentials(url: URL): { username?: string; password?: string } {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
