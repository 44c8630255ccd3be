// What compare-builds.mjs and async-resources.mjs share: one stand-in upstream, one config, and
// builds of the API started beside each other on it (own free ports, one Redis prefix), cleaned
// up together: children stopped, temp dir removed, Redis keys deleted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, deleteRedisKeys, freePort, readPort, waitForHealth } from './children.mjs';
import { benchConfig, switchboardEnv } from './env.mjs';
import { API_KEY } from './fixture.mjs';

/**
 * Starts `builds` ({ name: main.js }), each with `nodeArgs` before its script. An unexpected exit
 * of any child stops the run with exit code 1.
 * @returns {Promise<{ targets: Record<string, { name: string, origin: string, path: string, model: string,
 *   headers: Record<string, string>, pid: number, child: Child }>, stop: (code: number) => Promise<never> }>}
 */
export async function startBuilds(label, builds, { nodeArgs = [] } = {}) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-${label}-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${label}-`));
  const children = [];
  const stop = async (code) => {
    await Promise.allSettled(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
    await deleteRedisKeys(redisUrl, prefix).catch(() => {});
    process.exit(code);
  };
  const spawnChild = (name, args, env, stdout) => {
    const child = new Child(name, args, {
      env,
      stdout,
      onUnexpectedExit: (message) => {
        console.error(`${label}: ${message}`);
        void stop(1);
      },
    });
    children.push(child);
    return child;
  };

  const upstreamScript = new URL('./upstream-server.mjs', import.meta.url).pathname;
  const upstream = spawnChild('upstream', [upstreamScript], { ...process.env, PORT: '0', HOST: '127.0.0.1' }, 'pipe');
  const config = join(dir, 'switchboard.json');
  writeFileSync(config, JSON.stringify(benchConfig(await readPort(upstream), { apiKey: API_KEY })));
  const targets = {};
  for (const [name, script] of Object.entries(builds)) {
    const port = await freePort();
    const env = switchboardEnv({ port, configPath: config, redisUrl, prefix, logLevel: 'info' });
    const child = spawnChild(name, [...nodeArgs, script], env, 'ignore');
    const origin = `http://127.0.0.1:${port}`;
    await waitForHealth(origin, child);
    targets[name] = {
      name,
      origin,
      path: '/v1/chat/completions',
      model: 'bench/gpt-4o-mini',
      headers: { authorization: `Bearer ${API_KEY}` },
      pid: child.process.pid,
      child,
    };
  }
  return { targets, stop };
}
