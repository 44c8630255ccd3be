/**
 * What a worker knows of one MCP server, and reports for /status (`@switchboard/tools` makes it,
 * `@switchboard/state` stores it; here so that both, which may not import each other, share it).
 */
export interface McpServerState {
  name: string;
  transport: 'stdio' | 'http';
  connected: boolean;
  /** Its tools' names, as last listed. */
  tools: string[];
  /** Why it is not connected or last failed, scrubbed of the configured secrets. */
  lastError: string | null;
  /** Unix ms of `lastError`. */
  lastErrorAt: number | null;
}
