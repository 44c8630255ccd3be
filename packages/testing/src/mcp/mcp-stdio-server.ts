#!/usr/bin/env node
// The test MCP server over stdio (`node dist/mcp/mcp-stdio-server.js`), as the worker starts a
// configured `{command, args, env}` server. Each `create_ticket` call appends a line to the file
// named by MCP_SIDE_EFFECTS (the test counts them across processes, restarts included).
import { appendFileSync, readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './test-mcp-server.js';

const file = process.env.MCP_SIDE_EFFECTS;
const server = createTestMcpServer({
  onSideEffect(title) {
    if (!file) return 0;
    appendFileSync(file, `${JSON.stringify({ title, pid: process.pid })}\n`);
    return readFileSync(file, 'utf8').trim().split('\n').length;
  },
  onCrash: () => process.exit(1),
});
await server.connect(new StdioServerTransport());
// Its client gone (a worker SIGKILLed), it goes too rather than linger as an orphan.
process.stdin.on('end', () => process.exit(0));
