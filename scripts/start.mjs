#!/usr/bin/env node
// `npm start`: install if needed, build, make sure Redis answers, start the API and the worker.
// SIGINT/SIGTERM go to both; this exits once they have exited. A second signal kills them at once.
import { join } from 'node:path';
import { ensureRedis } from './lib/redis.mjs';
import { buildIfStale, ensureInstalled, root, spawnNode } from './lib/run.mjs';

/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
let redis = { ok: false, child: null };
let stopping = false;
let exitCode = 0;

const running = () => children.filter((child) => child.exitCode === null && child.signalCode === null);

function finish() {
  redis.child?.kill('SIGTERM');
  process.exit(exitCode);
}

/** Asks every child to stop (they drain and exit on their own, bounded); exits once all have. */
function stop(code) {
  if (stopping) return;
  stopping = true;
  exitCode ||= code;
  if (running().length === 0) finish();
  for (const child of running()) child.kill('SIGTERM');
}

// Registered before anything else, so a signal during the build or the Redis check is not lost.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (!stopping) {
      console.error(
        `\nswitchboard: stopping (${signal}) — the API drains its requests, the worker finishes its jobs; ${signal === 'SIGINT' ? 'Ctrl-C' : signal} again kills them now`,
      );
      return stop(0);
    }
    console.error('switchboard: killing the API and the worker now');
    exitCode ||= 1;
    for (const child of running()) child.kill('SIGKILL');
    redis.child?.kill('SIGKILL');
    process.exit(exitCode);
  });
}

// `npm start` runs this under npm, which does not pass a SIGTERM on: npm exits and this process is
// left to init. So a parent that goes away counts as a SIGTERM.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && !stopping) {
    console.error('\nswitchboard: stopping (the parent process went away)');
    stop(0);
  }
}, 250).unref();

ensureInstalled();
buildIfStale();
if (stopping) finish();

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
redis = await ensureRedis(redisUrl);
if (stopping) finish();

const api = spawnNode(join(root, 'apps/api/dist/main.js'), { REDIS_URL: redisUrl }, { ipc: true });
const worker = spawnNode(join(root, 'apps/worker/dist/main.js'), { REDIS_URL: redisUrl });
children.push(api, worker);

let up = false;
for (const [name, child] of [
  ['the API', api],
  ['the worker', worker],
]) {
  child.once('exit', (code, signal) => {
    if (running().length === 0 && stopping) finish();
    if (stopping) return;
    const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
    console.error(`switchboard: ${name} ${how}${up ? '' : ' before Switchboard was up'}; stopping the rest`);
    stop(code || 1);
  });
}

// The API says when it listens: an answer on the port could come from another process.
api.on('message', (message) => {
  if (stopping || !message || typeof message !== 'object' || message.type !== 'listening') return;
  up = true;
  const url = String(message.url);
  const shown = url.replace('//0.0.0.0:', '//127.0.0.1:');
  console.log(`\nSwitchboard is up: ${shown}  (OpenAI base URL: ${shown}/v1) — Ctrl-C stops it\n`);
});
