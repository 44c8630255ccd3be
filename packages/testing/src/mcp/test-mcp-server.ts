import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * A small MCP server built with the official SDK (`McpServer.registerTool`, as in the SDK's
 * README "Tools" examples), the same tools over stdio and Streamable HTTP:
 *
 * - `add` {a, b}: pure, answers the sum;
 * - `slow` {ms}: answers after `ms` (a tool that outlasts a time-out);
 * - `create_ticket` {title}: a side effect the test counts (`onSideEffect`), answers the ticket's number;
 * - `huge` {chars}: answers that many characters (an output the client must cap);
 * - `crash`: the process exits mid-call (stdio), or the call fails (HTTP: `onCrash` decides);
 * - `reveal`: registers one more tool, `revealed`, which the SDK announces with
 *   `notifications/tools/list_changed`.
 */
export interface TestMcpServerOptions {
  /** Called once per `create_ticket` call, before it answers; returns the ticket's number. */
  onSideEffect(title: string): number;
  onCrash(): void;
}

export function createTestMcpServer(options: TestMcpServerOptions): McpServer {
  const server = new McpServer({ name: 'switchboard-test-tools', version: '1.0.0' });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after a while.', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`done after ${ms} ms`);
    },
  );
  server.registerTool(
    'create_ticket',
    { description: 'Creates a ticket (a side effect).', inputSchema: { title: z.string() } },
    async ({ title }) => text(`ticket #${options.onSideEffect(title)} created: ${title}`),
  );
  server.registerTool(
    'huge',
    { description: 'Answers many characters.', inputSchema: { chars: z.number().int().min(0) } },
    async ({ chars }) => text('x'.repeat(chars)),
  );
  server.registerTool('crash', { description: 'Crashes the server.' }, async () => {
    options.onCrash();
    return { ...text('crashed'), isError: true };
  });
  server.registerTool('reveal', { description: 'Adds the tool `revealed`.' }, async () => {
    server.registerTool('revealed', { description: 'Appears after `reveal`.' }, async () => text('you found me'));
    return text('revealed');
  });
  return server;
}
