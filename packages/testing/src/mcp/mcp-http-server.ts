import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTestMcpServer } from './test-mcp-server.js';

/** The stdio test server's script, for a config's `{"command": "node", "args": [MCP_STDIO_SERVER]}`. */
export const MCP_STDIO_SERVER = fileURLToPath(new URL('./mcp-stdio-server.js', import.meta.url));

export interface TestMcpHttpServer {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The `create_ticket` titles, in order. */
  tickets: string[];
  /** Values of the `authorization` header each request carried. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * The test MCP server over Streamable HTTP (stateful: a session per client, as the SDK's
 * `StreamableHTTPServerTransport` README example), on a port the OS picks. With `token`, a request
 * without `Authorization: Bearer <token>` gets 401.
 */
export async function startTestMcpHttpServer(options: { token?: string } = {}): Promise<TestMcpHttpServer> {
  const tickets: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
      });
      const server = createTestMcpServer({
        onSideEffect: (title) => tickets.push(title),
        onCrash: () => {
          throw new Error('the tool crashed');
        },
      });
      await server.connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    tickets,
    authorizations,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
