#!/usr/bin/env node
// What one MCP tool call costs its client: McpServers (packages/tools, over Streamable HTTP through
// McpHttpTransport under the SDK's Client) calling the test MCP server's pure `add`, the server in
// a child process so that this process's CPU is the client's alone. Prints µs of CPU
// (process.cpuUsage, user + system) per call after a warm-up. BENCH_MCP_CALLS (1500) calls after
// BENCH_MCP_WARMUP (300). Run after a build: `node bench/mcp-call.mjs`.
// `node bench/mcp-call.mjs --callgrind`: the same client under valgrind's callgrind instead (V8
// --single-threaded, instrumentation on only for the measured calls, all threads), printing
// instructions per call — a figure the machine's load does not move, unlike CPU time, though runs
// of one build differ by up to an eighth (slow: a few minutes for 1,500 calls; needs valgrind on PATH).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { McpServers } from '@switchboard/tools';

const n = Number(process.env.BENCH_MCP_CALLS ?? 1500);
const callgrind = process.argv.includes('--callgrind');
const underValgrind = process.env.BENCH_MCP_UNDER_CALLGRIND === '1';

if (callgrind && !underValgrind) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-callgrind-'));
  try {
    const valgrind = ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${dir}/cg.%p`];
    execFileSync(
      'valgrind',
      [...valgrind, process.execPath, '--single-threaded', fileURLToPath(import.meta.url), '--callgrind'],
      {
        env: { ...process.env, BENCH_MCP_UNDER_CALLGRIND: '1' },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    let instructions = 0;
    for (const file of readdirSync(dir)) {
      const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
      instructions = Math.max(instructions, Number(totals?.[1] ?? 0));
    }
    console.log(
      `MCP call, client side: ${Math.round(instructions / n).toLocaleString('en')} instructions per call (${n} calls, callgrind)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

/** Callgrind's instrumentation of this process on or off (then its counts dumped), under --callgrind. */
const control = (...args) => promisify(execFile)('callgrind_control', [...args, String(process.pid)]);

const serve = "const t = await import('@switchboard/testing'); console.log((await t.startTestMcpHttpServer()).url);";
const child = spawn(process.execPath, ['--input-type=module', '-e', serve], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => child.stdout.once('data', (data) => resolve(String(data).trim())));
const servers = new McpServers({ calc: { url, headers: {}, timeoutMs: 30_000 } });
try {
  await servers.start();
  let retried = 0;
  const calls = async (count) => {
    for (let i = 0; i < count; i++) {
      const result = await servers.call('calc', 'add', { a: i, b: 1 });
      // Under valgrind a pause (callgrind_control's) can outlast the server's keep-alive time-out,
      // and the next request meets the closed connection: that call is made again (the failed try counted).
      if (result.isError && underValgrind && /other side closed/.test(result.text) && retried++ < 10) i--;
      else if (result.isError) throw new Error(result.text);
    }
  };
  await calls(Number(process.env.BENCH_MCP_WARMUP ?? 300));
  if (underValgrind) await control('-i', 'on');
  const before = process.cpuUsage();
  await calls(n);
  const used = process.cpuUsage(before);
  if (underValgrind) {
    await control('-i', 'off');
    await control('-d');
  } else {
    console.log(`MCP call, client side: ${((used.user + used.system) / n).toFixed(0)} µs of CPU per call (${n} calls)`);
  }
} finally {
  await servers.close();
  child.kill();
}
