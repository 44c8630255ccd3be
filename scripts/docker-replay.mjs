#!/usr/bin/env node
// CI: the Docker image without Docker (which cannot run here). Replays the Dockerfile's steps on a
// fresh copy of the repository (COPY honouring .dockerignore, RUN in order: install, build,
// `npm prune --omit=dev`), then starts the API and the worker from that copy with the environment
// docker-compose.yml gives them (.env.example as the recipe's .env, the example config as
// config/switchboard.yaml) on a private Redis, and checks they serve: proof that the image holds
// every runtime dependency. Exits 0, or 1 naming the step that failed. `--keep` keeps the copy.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { pingRedis } from './lib/redis.mjs';
import { root } from './lib/run.mjs';

const started = Date.now();
const timings = [];
const step = (name, since) => timings.push(`${name} ${((Date.now() - since) / 1000).toFixed(1)} s`);
const fail = (message) => {
  throw new Error(message);
};

// ---------------------------------------------------------------------------------------------
// The Dockerfile, as instructions per stage

function readDockerfile() {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const [, instruction, args] = /^(\w+)\s+(.*)$/.exec(line) ?? fail(`cannot read Dockerfile line: ${line}`);
    if (instruction.toUpperCase() === 'FROM') {
      stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.length), instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ instruction: instruction.toUpperCase(), args });
    }
  }
  return stages;
}

/** `.dockerignore` patterns (`**​/name`, `name`, `*.ext`) as a test on repository-relative paths. */
function dockerIgnore() {
  const file = join(root, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
    : [];
  const tests = patterns.map((pattern) => {
    const body = pattern.replace(/^\*\*\//, '');
    const re = new RegExp(`^${body.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return pattern.startsWith('**/') ? (path) => path.split('/').some((part) => re.test(part)) : (path) => re.test(path);
  });
  return (path) => tests.some((ignored) => ignored(path));
}

function parseEnvArgs(args) {
  const env = {};
  for (const [, name, value] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env[name] = value.replace(/^"|"$/g, '');
  return env;
}

/** The build stage on `work` (standing for its WORKDIR); returns what the last stage sets. */
function replay(stages, work) {
  const ignored = dockerIgnore();
  const cleanPath = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.includes('node_modules'))
    .join(':');
  const runtime = { env: {}, cmd: null };
  let workdir = null;
  for (const [index, stage] of stages.entries()) {
    const last = index === stages.length - 1;
    const env = {};
    for (const { instruction, args } of stage.instructions) {
      const inWork = (path) => {
        const absolute = path.startsWith('/') ? path : `${workdir}/${path}`;
        if (!workdir || !absolute.startsWith(workdir))
          fail(`${instruction} ${args}: only paths under WORKDIR ${workdir} are replayed`);
        return join(work, relative(workdir, absolute));
      };
      switch (instruction) {
        case 'WORKDIR':
          if (workdir && workdir !== args) fail(`WORKDIR ${args}: every stage must use one WORKDIR (${workdir})`);
          workdir = args;
          break;
        case 'ENV':
          Object.assign(env, parseEnvArgs(args));
          break;
        case 'COPY': {
          const parts = args.split(/\s+/);
          if (parts[0].startsWith('--from=')) {
            // The image copies the build stage's WORKDIR whole: on this machine it is the same folder.
            if (parts[1] !== workdir || parts[2] !== workdir) fail(`COPY ${args}: expected ${workdir} ${workdir}`);
            break;
          }
          const dest = parts.at(-1);
          for (const source of parts.slice(0, -1)) {
            const target = dest.endsWith('/') ? join(inWork(dest), source) : inWork(dest);
            cpSync(join(root, source), target, {
              recursive: true,
              filter: (from) => !ignored(relative(root, from)),
            });
          }
          break;
        }
        case 'RUN': {
          const since = Date.now();
          console.log(`docker-replay: RUN ${args}`);
          const result = spawnSync('sh', ['-c', args], {
            cwd: work,
            stdio: 'inherit',
            env: { PATH: cleanPath, HOME: process.env.HOME ?? '/root', ...env },
          });
          if (result.status !== 0) fail(`RUN ${args} failed with code ${result.status}`);
          step(`RUN ${args.slice(0, 40)}…`, since);
          break;
        }
        case 'CMD':
          runtime.cmd = JSON.parse(args);
          break;
        case 'USER':
        case 'EXPOSE':
          break; // no effect on what the copy holds
        default:
          fail(`${instruction}: not replayed; teach scripts/docker-replay.mjs what it means`);
      }
    }
    if (last) runtime.env = env;
  }
  return runtime;
}

// ---------------------------------------------------------------------------------------------
// The compose environment, and the two processes started from the copy

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function envFile(path) {
  const env = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

/** A service's environment as compose builds it, on this machine: its Redis, a free port, paths in the copy. */
function serviceEnv(service, imageEnv, work, overrides) {
  const files = [service.env_file ?? []].flat().map((file) => (file === '.env' ? '.env.example' : file));
  const env = { ...imageEnv };
  for (const file of files) Object.assign(env, envFile(join(root, file)));
  Object.assign(env, service.environment ?? {}, overrides);
  for (const [name, value] of Object.entries(env))
    if (value.startsWith('/app/')) env[name] = join(work, value.slice('/app/'.length));
  return { PATH: process.env.PATH, HOME: process.env.HOME ?? '/root', ...env };
}

function startProcess(name, command, env, cwd) {
  const [program, ...args] = command;
  if (program !== 'node') fail(`${name}: only node commands are replayed (${command.join(' ')})`);
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const keep = (chunk) => lines.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, child, lines, exited };
}

async function until(what, check, boundMs) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) fail(`${what}: not within ${boundMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// ---------------------------------------------------------------------------------------------

const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'switchboard-image-'));
let redis = null;
const processes = [];
try {
  let since = Date.now();
  const runtime = replay(readDockerfile(), work);
  step('replay (copy, install, build, prune)', since);
  for (const dev of ['typescript', 'vitest', 'turbo', '@biomejs/biome']) {
    if (!existsSync(join(work, 'node_modules', dev))) continue;
    // A runtime dependency may need it as a peer (Bull Board's valibot peers typescript): then it stays, by right.
    const needed = spawnSync('npm', ['ls', dev, '--omit=dev', '--parseable'], { cwd: work, encoding: 'utf8' });
    if (needed.status !== 0 || !needed.stdout.trim()) fail(`npm prune --omit=dev left ${dev} in the image`);
  }

  since = Date.now();
  // The recipe: `cp config/switchboard.example.yaml config/switchboard.yaml`, mounted at /app/config.
  mkdirSync(join(work, 'config'), { recursive: true });
  cpSync(join(root, 'config/switchboard.example.yaml'), join(work, 'config/switchboard.yaml'));
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'));
  const redisPort = await freePort();
  // Compose's Redis flags (append-only file…), its files kept in the copy, never in this checkout.
  const redisArgs = ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--dir', work];
  redis = spawn('redis-server', [...redisArgs, ...compose.services.redis.command.slice(1)], { stdio: 'ignore' });
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  await until('redis-server answering', () => pingRedis(redisUrl), 10_000);
  const port = await freePort();
  const overrides = { REDIS_URL: redisUrl, PORT: String(port), SWITCHBOARD_REDIS_PREFIX: `replay-${process.pid}` };
  for (const name of ['api', 'worker']) {
    const service = compose.services[name];
    processes.push(startProcess(name, service.command ?? runtime.cmd, serviceEnv(service, runtime.env, work, overrides), work));
  }
  const env = envFile(join(root, '.env.example'));
  const base = `http://127.0.0.1:${port}`;
  const apiKey = env.SWITCHBOARD_API_KEYS.split(',')[0];
  const authorized = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  await until('the API answering /ready', async () => (await fetch(`${base}/ready`)).ok, 30_000);
  const chat = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: authorized,
    body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const answer = await chat.json();
  if (answer?.choices?.[0]?.message?.content !== 'Echo: hi')
    fail(`/v1/chat/completions answered ${chat.status} ${JSON.stringify(answer)}`);
  if ((await fetch(`${base}/v1/models`)).status !== 401) fail('/v1 answered without the API key from .env');
  const hook = await fetch(`${base}/hooks/support`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.SUPPORT_HOOK_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello from the replay', from: 'ci' }),
  });
  if (hook.status !== 202) fail(`/hooks/support answered ${hook.status}`);
  const { id } = await hook.json();
  await until(
    'the worker listed in /status',
    async () => (await (await fetch(`${base}/status`, { headers: authorized })).json()).workers.length === 1,
    30_000,
  );
  // The model (OpenAI, unreachable here) fails: an attempt made proves the worker ran the job.
  await until(
    'the worker taking the hook message',
    async () => {
      const view = await (
        await fetch(`${base}/hooks/support/jobs/${id}`, { headers: { 'x-hook-token': env.SUPPORT_HOOK_TOKEN } })
      ).json();
      return view.attempts >= 1;
    },
    30_000,
  );
  for (const proc of processes) proc.child.kill('SIGTERM');
  for (const proc of processes) {
    const code = await Promise.race([proc.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 40_000))]);
    if (code !== 0) fail(`${proc.name} exited with ${code} on SIGTERM`);
  }
  step('start both, serve, stop', since);
  console.log(
    `docker-replay: the image starts and serves (${timings.join('; ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
} catch (err) {
  process.exitCode = 1;
  console.error(`docker-replay: ${err.message}`);
  for (const proc of processes) console.error(`--- ${proc.name} output\n${proc.lines.slice(-30).join('\n')}`);
} finally {
  for (const proc of processes) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  redis?.kill('SIGKILL');
  if (keep) console.log(`docker-replay: the copy is kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
