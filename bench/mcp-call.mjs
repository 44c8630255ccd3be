#!/usr/bin/env node
// What one MCP tool call costs its client: McpServers (packages/tools, over Streamable HTTP through
// McpHttpTransport under the SDK's Client) calling the test MCP server's pure `add`, the server in
// a child process so that this process's CPU is the client's alone. Prints µs of CPU
// (process.cpuUsage, user + system) per call after a warm-up. BENCH_MCP_CALLS (1500) calls after
// BENCH_MCP_WARMUP (300). Run after a build: `node bench/mcp-call.mjs`.
import { spawn } from 'node:child_process';
import { McpServers } from '@switchboard/tools';

const serve = "const t = await import('@switchboard/testing'); console.log((await t.startTestMcpHttpServer()).url);";
const child = spawn(process.execPath, ['--input-type=module', '-e', serve], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => child.stdout.once('data', (data) => resolve(String(data).trim())));
const servers = new McpServers({ calc: { url, headers: {}, timeoutMs: 30_000 } });
try {
  await servers.start();
  const calls = async (n) => {
    for (let i = 0; i < n; i++) {
      const result = await servers.call('calc', 'add', { a: i, b: 1 });
      if (result.isError) throw new Error(result.text);
    }
  };
  await calls(Number(process.env.BENCH_MCP_WARMUP ?? 300));
  const n = Number(process.env.BENCH_MCP_CALLS ?? 1500);
  const before = process.cpuUsage();
  await calls(n);
  const used = process.cpuUsage(before);
  console.log(`MCP call, client side: ${((used.user + used.system) / n).toFixed(0)} µs of CPU per call (${n} calls)`);
} finally {
  await servers.close();
  child.kill();
}
