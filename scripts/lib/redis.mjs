import { spawn, spawnSync } from 'node:child_process';
import { connect, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';

/**
 * The servers `REDIS_URL` names, read as the apps read it (packages/config redis-target.ts):
 * `redis://` / `rediss://` one server; `redis-cluster://h:p,h:p,…` the cluster's seed nodes;
 * `redis-sentinel://h:p,h:p,…/<master>` the sentinels. Null when it is none of these: the apps
 * then refuse it with a message that names REDIS_URL (exit 78).
 */
export function redisEndpoints(url) {
  const multi = /^(rediss?)-(cluster|sentinel):\/\/(?:[^@/]*@)?([^/]+)/.exec(url);
  if (multi) {
    const nodes = multi[3].split(',').map((node) => /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(node.trim()));
    if (nodes.some((node) => !node)) return null;
    const hosts = nodes.map(([, host, port]) => ({ host, port: Number(port) }));
    return { kind: multi[2], tls: multi[1] === 'rediss', nodes: hosts };
  }
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { kind: 'single', tls: parsed.protocol === 'rediss:', nodes: [{ host, port: Number(parsed.port || 6379) }] };
}

/** True when one server at `host:port` answers a RESP PING with PONG (or NOAUTH: a server is there). */
function pingNode({ host, port }, tls, timeoutMs) {
  return new Promise((resolve) => {
    const socket = tls
      ? connectTls({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) })
      : connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on(tls ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(/^\+PONG|^-NOAUTH/.test(data.toString())));
  });
}

/** True when a server `url` names answers (any one of a cluster's nodes or of the sentinels). */
export async function pingRedis(url, timeoutMs = 1000) {
  const target = redisEndpoints(url);
  if (!target) return false;
  const answers = await Promise.all(target.nodes.map((node) => pingNode(node, target.tls, timeoutMs)));
  return answers.includes(true);
}

function hasRedisServer() {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure Redis answers at `url`. If it does not, the URL names one server on this machine and
 * redis-server is installed, a private one (nothing on disk) is started and returned so the
 * caller can stop it; otherwise one line says how to get one. A cluster or Sentinel URL is only
 * checked: nobody starts a cluster for you.
 */
export async function ensureRedis(url, { quiet = false } = {}) {
  const target = redisEndpoints(url);
  if (!target) {
    console.warn(`switchboard: REDIS_URL '${redact(url)}' is not a Redis URL; the API and the worker will say why`);
    return { ok: false, child: null };
  }
  if (await pingRedis(url)) return { ok: true, child: null };
  const [{ host, port }] = target.nodes;
  const local = ['127.0.0.1', 'localhost', '::1'].includes(host);
  if (target.kind !== 'single' || target.tls || !local || !hasRedisServer()) {
    const what =
      target.kind === 'single'
        ? 'Redis does not answer'
        : `no ${target.kind === 'cluster' ? 'cluster node' : 'sentinel'} answers`;
    console.warn(
      `switchboard: ${what} at ${redact(url)} — start one with 'docker compose up -d redis' or 'apt-get install redis-server'; /v1 works without it, hooks and /status figures need it.`,
    );
    return { ok: false, child: null };
  }
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore', detached: false },
  );
  for (let i = 0; i < 50; i++) {
    if (await pingRedis(url)) {
      if (!quiet) console.log(`switchboard: started a private redis-server on port ${port} for this session`);
      return { ok: true, child };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  console.warn(`switchboard: could not start redis-server on port ${port}`);
  return { ok: false, child: null };
}

export function redact(url) {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
