#!/usr/bin/env node
// What a tool step costs the worker: the tools phase of `npm run bench:hub` (`BENCH_HUB_ONLY=tools`
// runs only it; `node bench/hub-tools.mjs` after a build runs it alone too). A real worker process
// on a private redis-server, warmed up with N messages of each kind, answers N messages without
// tools, then N messages of STEPS tool steps each (the model — a local fake speaking OpenAI's
// tool_calls — asks for the test MCP server's pure `add` over Streamable HTTP — or over stdio with
// BENCH_TOOLS_TRANSPORT=stdio — once per step; model and MCP server run in this process, so the
// worker's CPU excludes them; a stdio server is the worker's child, whose CPU /proc counts apart).
// Per step: (worker CPU with tools − without) / (N × STEPS), and Redis commands likewise — the
// extra model call's client side and the MCP client's work included, the tool's own time not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { loadSettings } from '@switchboard/config';
import { acceptMessage, createHub } from '@switchboard/hub';
import { MCP_STDIO_SERVER, startOpenAIUpstream, startTestMcpHttpServer, toolCallingModel } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { Child } from './children.mjs';
import { processCpuMs } from './cpu.mjs';
import { RedisCounters, startRedisServer } from './redis-server.mjs';

/**
 * The phase's size from the environment: BENCH_TOOLS_MESSAGES (200) messages of BENCH_TOOLS_STEPS
 * (3) steps, the MCP server over BENCH_TOOLS_TRANSPORT (`http`, or `stdio`).
 */
export const toolsOptions = () => ({
  messages: Number(process.env.BENCH_TOOLS_MESSAGES ?? 200),
  steps: Number(process.env.BENCH_TOOLS_STEPS ?? 3),
  transport: process.env.BENCH_TOOLS_TRANSPORT === 'stdio' ? 'stdio' : 'http',
  profileDir: process.env.BENCH_TOOLS_PROFILE,
});

/**
 * Runs the phase on a redis-server and worker of its own; resolves with the per-step figures.
 * @param {{ messages: number, steps: number, transport?: 'http' | 'stdio', profileDir?: string }} options
 */
export async function toolsScenario({ messages: N, steps: STEPS, transport = 'http', profileDir }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tools-'));
  const fail = (message) => {
    console.error(`bench: ${message}`);
    process.exit(1);
  };

  const redisServer = await startRedisServer({ dir, onUnexpectedExit: fail });
  const turns = Array.from({ length: STEPS }, (_, i) => [{ name: 'calc__add', arguments: { a: i, b: 1 } }]);
  const upstream = await startOpenAIUpstream(toolCallingModel((prompt) => (prompt.startsWith('tools') ? turns : undefined)));
  const mcp = await startTestMcpHttpServer();
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      defaultModel: 'mock/m',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
      mcpServers: { calc: transport === 'stdio' ? { command: process.execPath, args: [MCP_STDIO_SERVER] } : { url: mcp.url } },
      hooks: { bench: { type: 'generic', token: 'bench-hook-token', stream: false, tools: ['calc'], maxToolSteps: STEPS + 1 } },
      worker: { concurrency: 8 },
    }),
  );
  const env = {
    ...process.env,
    REDIS_URL: redisServer.url,
    SWITCHBOARD_CONFIG: configPath,
    SWITCHBOARD_REDIS_PREFIX: 'bench',
    LOG_LEVEL: 'warn',
  };
  const settings = loadSettings(env);
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  const hub = createHub(redis, settings);
  const counters = new RedisCounters(redisServer.url);
  // BENCH_TOOLS_PROFILE=<dir>: the worker writes a V8 CPU profile there (bench/profile-summary.mjs reads it).
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const worker = new Child('worker', [...profile, 'apps/worker/dist/main.js'], { env, stdout: 'ignore', onUnexpectedExit: fail });

  async function completed() {
    return (await hub.queue.getJobCounts('completed')).completed;
  }

  /** Accepts N messages (each its own conversation), waits until all are answered; worker CPU and Redis commands meanwhile. */
  async function phase(kind, done) {
    const cpu0 = processCpuMs(worker.pid);
    const redis0 = await counters.read();
    for (let i = 0; i < N; i++) {
      await acceptMessage(hub, 'bench', {
        text: `${kind} ${i}`,
        conversation: `${kind}-${i}`,
        action: 'chat',
        from: 'bench',
        replyTo: {},
        dedupeKey: null,
      });
    }
    let polls = 0;
    while ((await completed()) < done + N) {
      polls++;
      await sleep(50);
    }
    const cpu1 = processCpuMs(worker.pid);
    const redis1 = await counters.read();
    return { cpuMs: cpu1 - cpu0, commands: redis1.commands - redis0.commands, polls };
  }

  try {
    await sleep(1_500); // the worker starts and connects its MCP server
    // Both paths are warmed before either is measured: otherwise the tools phase would pay for the
    // first compilation of the tool loop's code (the optimizing compiler's threads count in the
    // worker's CPU), a cost of the process's first minutes, not of a step.
    await phase('warmup', 0);
    await phase('tools-warmup', N);
    const plain = await phase('plain', 2 * N);
    const tools = await phase('tools', 3 * N);
    // One poll's own commands, to take them out.
    const p0 = await counters.read();
    await completed();
    const p1 = await counters.read();
    const perPoll = p1.commands - p0.commands;
    const steps = N * STEPS;
    const cpuPerStep = (tools.cpuMs - plain.cpuMs) / steps;
    const commandsPerStep = (tools.commands - tools.polls * perPoll - (plain.commands - plain.polls * perPoll)) / steps;
    return {
      messages: N,
      steps: STEPS,
      transport,
      plainMsPerMessage: plain.cpuMs / N,
      toolsMsPerMessage: tools.cpuMs / N,
      cpuPerStep,
      commandsPerStep,
      perPoll,
      mcpRequests: mcp.authorizations.length,
      modelRequests: upstream.requests.length,
    };
  } finally {
    await worker.stop();
    await hub.close();
    redis.disconnect();
    counters.close();
    await Promise.all([upstream.close(), mcp.close()]);
    await redisServer.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The phase's lines for the report; the target (issue 20) is 1 ms of worker CPU per step. */
export function toolsReport(r) {
  return [
    `Tools (a tool step: one model call asking for a tool, the MCP call over ${r.transport}, the records; ${r.messages} messages of ${r.steps} steps):`,
    `  worker CPU: ${r.plainMsPerMessage.toFixed(2)} ms per message without tools, ${r.toolsMsPerMessage.toFixed(2)} ms with`,
    `  worker CPU per tool step: ${r.cpuPerStep.toFixed(2)} ms (target ≤ 1 ms: ${r.cpuPerStep <= 1 ? 'met' : 'not met'})`,
    `  Redis commands per tool step: ${r.commandsPerStep.toFixed(1)} (${r.perPoll} per poll taken out)`,
    `  ${r.transport === 'http' ? `MCP requests: ${r.mcpRequests}; ` : ''}model requests: ${r.modelRequests}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(toolsReport(await toolsScenario(toolsOptions())));
}
