import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '@switchboard/config';
import type { McpServerState } from '@switchboard/protocol';
import { Agent } from 'undici';
import { z } from 'zod';
import { type OfferedTool, offeredTools, type ToolInfo } from './offered-tools.js';
import { DEFAULT_MAX_OUTPUT_CHARS, type ToolOutput, toolError, toolOutput } from './tool-output.js';

export interface McpServersOptions {
  log?: (level: 'info' | 'warn', message: string, meta: Record<string, unknown>) => void;
  /** Longest tool output the model is given. @defaultValue 16000 */
  maxOutputChars?: number;
  /** First wait before reconnecting a server that died or never answered; doubles to 30 s. @defaultValue 1000 */
  reconnectMs?: number;
  /** Removes secrets from error messages before they are kept or shown. */
  scrub?: (text: string) => string;
  /** Called with the server's new state when it connects, lists its tools again, fails or closes. */
  onChange?: (state: McpServerState) => void;
}

const MAX_RECONNECT_MS = 30_000;
/** A connection (a stdio server's start included) may take this long even when tool calls are bounded tighter. */
const MIN_CONNECT_MS = 10_000;
const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' };
/**
 * What `callTool` checks a result against: an object, nothing more. The SDK's CallToolResultSchema
 * (every content item's union, annotations, defaults) cost about as much as the rest of the
 * client's protocol work per call, and `toolOutput` reads only `content` (text items; others
 * named), `structuredContent` and `isError`, each checked as it is read. A tool's `outputSchema`
 * is still checked by the SDK against `structuredContent`.
 */
const CALL_RESULT = z.custom<CallToolResult>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
  message: 'the tool result is not an object',
});

/**
 * The configured MCP servers, connected with the official SDK's client: a stdio server is started
 * as a child process (with a minimal environment plus its `env`) and started again when it dies;
 * a Streamable HTTP server is sent its `headers`. Each server's tools are listed once on connect
 * and again when it sends `notifications/tools/list_changed`. A server that cannot be reached is
 * retried in the background (back-off from `reconnectMs` to 30 s); until then its tools are not
 * offered, and the bot answers without them.
 *
 * The SDK is imported on the first connection: both apps build this object whether or not any
 * server is configured, and loading the SDK (with ajv) cost each process 0.1–0.2 s of CPU at start.
 */
export class McpServers {
  private readonly servers = new Map<string, ServerConnection>();
  private started: Promise<void> | null = null;

  constructor(configs: Record<string, McpServerConfig>, options: McpServersOptions = {}) {
    for (const [name, config] of Object.entries(configs)) this.servers.set(name, new ServerConnection(name, config, options));
  }

  get size(): number {
    return this.servers.size;
  }

  /**
   * Connects every server at once; resolves when each is connected or has failed once (bounded by
   * its `timeoutMs`, at least 10 s). Called again, it returns the same promise: the first tool loop waits for it.
   */
  start(): Promise<void> {
    this.started ??= Promise.all([...this.servers.values()].map((server) => server.begin())).then(() => {});
    return this.started;
  }

  /**
   * Connects the named servers not tried yet, each once (the API's lazy start: only the servers a
   * request names); resolves when each is connected or has failed once. Later calls wait for that
   * first attempt only: a server down since is retried in the background, not per request.
   */
  async ready(names: readonly string[]): Promise<void> {
    await Promise.all(names.map((name) => this.servers.get(name)?.begin()));
  }

  states(): McpServerState[] {
    return [...this.servers.values()].map((server) => server.state());
  }

  /** The tools `grants` allow, of the servers connected now, by the function name the model calls. */
  offer(grants: readonly string[]): Map<string, OfferedTool> {
    if (grants.length === 0) return new Map();
    const lists = new Map<string, ToolInfo[]>();
    for (const [name, server] of this.servers) if (server.connected) lists.set(name, server.tools);
    return offeredTools(grants, lists);
  }

  /**
   * Calls a tool, bounded by its server's `timeoutMs` and `signal`; never throws: a time-out, a
   * crash, a server not connected are tool errors the model reads.
   */
  async call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput> {
    const connection = this.servers.get(server);
    if (!connection) return toolError(`there is no MCP server named '${server}'`);
    return connection.call(tool, args, signal);
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.close()));
  }
}

class ServerConnection {
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private firstAttempt: Promise<void> | null = null;
  tools: ToolInfo[] = [];
  private lastError: string | null = null;
  private lastErrorAt: number | null = null;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A Streamable HTTP server's requests, on a keep-alive pool of its own. */
  private http: Agent | null = null;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly options: McpServersOptions,
  ) {
    this.retryMs = options.reconnectMs ?? 1_000;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  state(): McpServerState {
    return {
      name: this.name,
      transport: 'url' in this.config ? 'http' : 'stdio',
      connected: this.connected,
      tools: this.tools.map((tool) => tool.name),
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
    };
  }

  /** The first connection attempt, made once. */
  begin(): Promise<void> {
    this.firstAttempt ??= this.connect();
    return this.firstAttempt;
  }

  connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.closed || this.client) return;
    const [{ Client }, transport] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), this.transport()]);
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error) return this.failed(`listing tools: ${error.message}`);
            if (tools && this.client === client) {
              this.tools = tools.map(toolInfo);
              this.changed();
            }
          },
        },
      },
    });
    const timeout = Math.max(this.config.timeoutMs, MIN_CONNECT_MS);
    try {
      await client.connect(transport, { timeout });
      const { tools } = await client.listTools(undefined, { timeout });
      if (this.closed) {
        await client.close();
        return;
      }
      this.tools = tools.map(toolInfo);
      this.client = client;
      this.retryMs = this.options.reconnectMs ?? 1_000;
      client.onclose = () => this.lost(client);
      this.options.log?.('info', 'mcp server connected', { mcp_server: this.name, tools: this.tools.length });
      this.changed();
    } catch (err) {
      await client.close().catch(() => {});
      this.failed(`connecting: ${(err as Error).message}`);
      this.scheduleReconnect();
    }
  }

  private async transport(): Promise<Transport> {
    const config = this.config;
    if ('url' in config) {
      const { McpHttpTransport } = await import('./mcp-http-transport.js');
      this.http ??= new Agent();
      return new McpHttpTransport(config.url, config.headers, this.http);
    }
    const { getDefaultEnvironment, StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    return new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      // Its stderr is its own log, not ours: it may print what its env holds.
      stderr: 'ignore',
    });
  }

  /** The connection closed (a stdio server that died, an HTTP session gone): connect again. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.failed('connection closed');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RECONNECT_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect().catch(() => {});
    }, wait);
    this.retryTimer.unref();
  }

  private failed(message: string): void {
    const scrubbed = this.options.scrub ? this.options.scrub(message) : message;
    this.lastError = scrubbed;
    this.lastErrorAt = Date.now();
    this.options.log?.('warn', 'mcp server unavailable', { mcp_server: this.name, error: scrubbed });
    this.changed();
  }

  private changed(): void {
    this.options.onChange?.(this.state());
  }

  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput> {
    const client = this.client;
    if (!client) return toolError(`the tool server '${this.name}' is not connected`);
    const maxChars = this.options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    // The SDK's client never takes its 'abort' listener off the signal it is given: it is given one
    // of the call's own, aborted with the caller's, so the caller's (a job's, for all its calls) keeps none.
    const own = signal ? new AbortController() : undefined;
    const abort = () => own?.abort(signal?.reason);
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    try {
      const result = await client.callTool(
        { name: tool, arguments: args },
        CALL_RESULT as unknown as typeof CallToolResultSchema,
        {
          timeout: this.config.timeoutMs,
          ...(own ? { signal: own.signal } : {}),
        },
      );
      return toolOutput(result, maxChars);
    } catch (err) {
      // Shutdown, a lost lock or a client gone: the caller stops here, the call never completed. The
      // abort's own reason, not the SDK's McpError around it, so callers see an abort for what it is.
      if (signal?.aborted) throw signal.reason ?? err;
      const message = (err as Error).message;
      this.failed(`calling ${tool}: ${message}`);
      return toolError(
        /timed out/i.test(message) ? `${tool} timed out after ${this.config.timeoutMs} ms` : `${tool} failed: ${message}`,
      );
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => {});
    await this.http?.close().catch(() => {});
  }
}

function toolInfo(tool: { name: string; description?: string | undefined; inputSchema: Record<string, unknown> }): ToolInfo {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}
