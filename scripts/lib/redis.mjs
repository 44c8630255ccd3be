import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';

/** True when something at `url` answers a RESP PING with PONG (or NOAUTH: a server is there). */
export function pingRedis(url, timeoutMs = 1000) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(/^\+PONG|^-NOAUTH/.test(data.toString())));
  });
}

function hasRedisServer() {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure Redis answers at `url`. If it does not, the URL is on this machine and
 * redis-server is installed, a private one (nothing on disk) is started and returned so the
 * caller can stop it; otherwise one line says how to get one.
 */
export async function ensureRedis(url, { quiet = false } = {}) {
  if (await pingRedis(url)) return { ok: true, child: null };
  const { hostname, port } = new URL(url);
  const local = ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(hostname);
  if (!local || !hasRedisServer()) {
    console.warn(
      `switchboard: Redis does not answer at ${redact(url)} — start one with 'docker compose up -d redis' or 'apt-get install redis-server'; /v1 works without it, hooks and /status figures need it.`,
    );
    return { ok: false, child: null };
  }
  const child = spawn(
    'redis-server',
    ['--port', String(port || 6379), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore', detached: false },
  );
  for (let i = 0; i < 50; i++) {
    if (await pingRedis(url)) {
      if (!quiet) console.log(`switchboard: started a private redis-server on port ${port || 6379} for this session`);
      return { ok: true, child };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  console.warn(`switchboard: could not start redis-server on port ${port || 6379}`);
  return { ok: false, child: null };
}

export function redact(url) {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
