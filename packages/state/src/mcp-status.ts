import type { McpServerState } from '@switchboard/protocol';
import { z } from 'zod';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';

/**
 * The MCP servers' state as workers see them (the API connects to none): each worker writes a
 * server's entry when it changes — connected, its tools listed again, an error — into one hash
 * (server → JSON); /status reads it. With several workers the last report wins; `reported_at`
 * says how fresh it is. A configured server no worker reported yet shows `connected: null`.
 */
const reportSchema = z.object({
  transport: z.enum(['stdio', 'http']),
  connected: z.boolean(),
  tools: z.array(z.string()),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  reported_at: z.string(),
});

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http' | null;
  /** null: no worker has reported it yet. */
  connected: boolean | null;
  tools: string[];
  last_error: string | null;
  last_error_at: string | null;
  reported_at: string | null;
}

export class McpStatusBoard {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
  ) {}

  async report(servers: readonly McpServerState[], now = new Date()): Promise<void> {
    if (servers.length === 0) return;
    const fields = servers.flatMap((server) => [
      server.name,
      JSON.stringify({
        transport: server.transport,
        connected: server.connected,
        tools: server.tools,
        last_error: server.lastError,
        last_error_at: server.lastErrorAt === null ? null : new Date(server.lastErrorAt).toISOString(),
        reported_at: now.toISOString(),
      }),
    ]);
    await this.redis.hset(this.keys.mcpServers, ...fields);
  }

  /** The configured servers, in order, as last reported. */
  async read(names: readonly string[]): Promise<McpServerStatus[]> {
    if (names.length === 0) return [];
    const values = await this.redis.hmget(this.keys.mcpServers, ...names);
    return names.map((name, i) => {
      const parsed = reportSchema.safeParse(parseJson(values[i]));
      if (parsed.success) return { name, ...parsed.data };
      return { name, transport: null, connected: null, tools: [], last_error: null, last_error_at: null, reported_at: null };
    });
  }
}

function parseJson(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
