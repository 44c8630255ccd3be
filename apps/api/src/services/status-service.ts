import type { Hook } from '@switchboard/channels';
import { type HubShards, INBOUND_QUEUE, type QueueCounts, totalQueueCounts } from '@switchboard/hub';
import type { Gateway } from '@switchboard/providers';
import {
  type ActiveSessions,
  type ChannelStats,
  type ChannelStatus,
  type McpServerStatus,
  type McpStatusBoard,
  type RedisClient,
  type WorkerInfo,
  type WorkerRegistry,
  withTimeout,
} from '@switchboard/state';
import { type DeploymentStatus, deploymentStatus } from './deployment-status.js';

/** What /status and the shared gauges read from: the parts of the app's deps they use (deps.ts builds them). */
export interface StatusSources {
  redis: Pick<RedisClient, 'status'>;
  readyHub: () => Promise<HubShards>;
  hooks: ReadonlyMap<string, Pick<Hook, 'name' | 'config'>>;
  channelStats: Pick<ChannelStats, 'read'>;
  sessions: Pick<ActiveSessions, 'count'>;
  workers: Pick<WorkerRegistry, 'list'>;
  /** The configured MCP servers' names, and their state as workers report it. */
  mcpServers: { names: readonly string[]; board: Pick<McpStatusBoard, 'read'> };
  gateway: Gateway;
  version: string;
  startedAt: Date;
}

export interface StatusRecord {
  status: 'ok' | 'degraded';
  version: string;
  uptime_seconds: number;
  started_at: string;
  connected_channels: number;
  channels: ChannelStatus[];
  /** Users (/v1 `user`) and hook conversations active within the window; null while Redis is away. */
  active_sessions: number | null;
  queues: Record<string, QueueCounts>;
  workers: WorkerInfo[];
  /** Every model deployment: its routes, whether it is cooling down, its last error. */
  deployments: DeploymentStatus[];
  /** Each configured MCP server as the workers last saw it: connected, its tools, its last error. */
  mcp_servers: McpServerStatus[];
  redis: { connected: boolean };
}

/** What every API process reads alike from Redis: /status and the metrics' shared gauges show it. */
export interface SharedState {
  channels: ChannelStatus[];
  activeSessions: number;
  queue: QueueCounts;
  workers: WorkerInfo[];
}

/** Channels, active sessions, the inbound queue's counts and the workers, read at once; fails while Redis is away. */
export async function readSharedState(deps: StatusSources): Promise<SharedState> {
  if (deps.redis.status !== 'ready') throw new Error('redis not ready');
  const [channels, activeSessions, queue, workers] = await Promise.all([
    deps.channelStats.read(hookList(deps)),
    deps.sessions.count(),
    deps.readyHub().then((hubs) => totalQueueCounts(hubs.shards.map((hub) => hub.queue))),
    deps.workers.list(),
  ]);
  return { channels, activeSessions, queue, workers };
}

const hookList = (deps: StatusSources) => [...deps.hooks.values()].map((hook) => ({ name: hook.name, type: hook.config.type }));

/**
 * The operator's view. Everything but uptime is read from Redis, so every API process reports
 * the same figures; with Redis away the record still answers, marked `degraded`.
 */
export async function readStatus(deps: StatusSources): Promise<StatusRecord> {
  const base = {
    version: deps.version,
    uptime_seconds: Math.floor((Date.now() - deps.startedAt.getTime()) / 1000),
    started_at: deps.startedAt.toISOString(),
  };
  try {
    if (deps.redis.status !== 'ready') throw new Error('redis not ready'); // nor ask for the cooldowns
    const [{ channels, activeSessions, queue, workers }, health, mcpServers] = await withTimeout(
      Promise.all([readSharedState(deps), deps.gateway.health(), deps.mcpServers.board.read(deps.mcpServers.names)]),
      2_000,
    );
    return {
      status: 'ok',
      ...base,
      connected_channels: channels.filter((c) => c.connected === true).length,
      channels,
      active_sessions: activeSessions,
      queues: { [INBOUND_QUEUE]: queue },
      workers,
      deployments: deploymentStatus(deps.gateway, health),
      mcp_servers: mcpServers,
      redis: { connected: true },
    };
  } catch {
    // Without Redis nothing is known of the channels: they are listed, not counted or judged.
    const channels = hookList(deps).map((hook) => ({
      ...hook,
      connected: null,
      checked_at: null,
      last_inbound_at: null,
      last_outbound_at: null,
      last_error: 'Redis is not reachable',
      messages_in: 0,
      messages_out: 0,
    }));
    return {
      status: 'degraded',
      ...base,
      connected_channels: 0,
      channels,
      active_sessions: null,
      queues: {},
      workers: [],
      deployments: deploymentStatus(deps.gateway, null),
      mcp_servers: deps.mcpServers.names.map((name) => ({
        name,
        transport: null,
        connected: null,
        tools: [],
        last_error: 'Redis is not reachable',
        last_error_at: null,
        reported_at: null,
      })),
      redis: { connected: false },
    };
  }
}
