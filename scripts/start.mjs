#!/usr/bin/env node
// `npm start`: install if needed, build, make sure Redis answers, start the API and the worker.
import { join } from 'node:path';
import { ensureRedis } from './lib/redis.mjs';
import { build, ensureInstalled, root, spawnNode } from './lib/run.mjs';

ensureInstalled();
build();

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redis = await ensureRedis(redisUrl);

const host = process.env.HOST || '127.0.0.1';
const port = process.env.PORT || '8080';
const children = [
  spawnNode(join(root, 'apps/api/dist/main.js'), { REDIS_URL: redisUrl }),
  spawnNode(join(root, 'apps/worker/dist/main.js'), { REDIS_URL: redisUrl }),
];

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  let left = children.filter((c) => c.exitCode === null).length;
  const finish = () => {
    redis.child?.kill('SIGTERM');
    process.exit(code);
  };
  if (left === 0) finish();
  for (const child of children) {
    if (child.exitCode !== null) continue;
    child.once('exit', () => --left === 0 && finish());
    child.kill('SIGTERM');
  }
}

for (const child of children) {
  child.once('exit', (exitCode) => {
    if (!stopping) {
      console.error(`switchboard: a process exited (code ${exitCode}); stopping the rest`);
      stop(exitCode || 1);
    }
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

const shown = host.includes(':') ? `[${host}]` : host;
for (let i = 0; i < 100 && !stopping; i++) {
  const ok = await fetch(`http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${port}/health`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) {
    console.log(
      `\nSwitchboard is up: http://${shown}:${port}  (OpenAI base URL: http://${shown}:${port}/v1) — Ctrl-C stops it\n`,
    );
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
