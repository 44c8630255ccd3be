import type { Redis } from 'ioredis';
import type { StateKeys } from './keys.js';

export interface ChannelStatus {
  name: string;
  type: string;
  connected: boolean;
  last_inbound_at: string | null;
  last_outbound_at: string | null;
  last_error: string | null;
  messages_in: number;
  messages_out: number;
}

/** After this many delivery failures in a row a channel shows as not connected. */
const FAILING_AFTER = 3;

/**
 * Per-hook counters in one Redis hash each, so every API and worker process reports the same
 * figures. A channel is `connected` unless its deliveries keep failing or its credentials
 * were refused; one success clears both.
 */
export class ChannelStats {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
  ) {}

  async recordInbound(name: string, at = new Date()): Promise<void> {
    await this.redis
      .multi()
      .hincrby(this.keys.channel(name), 'messages_in', 1)
      .hset(this.keys.channel(name), 'last_inbound_at', at.toISOString())
      .exec();
  }

  async recordOutbound(name: string, at = new Date()): Promise<void> {
    await this.redis
      .multi()
      .hincrby(this.keys.channel(name), 'messages_out', 1)
      .hset(this.keys.channel(name), 'last_outbound_at', at.toISOString(), 'failures', '0', 'credentials_refused', '0')
      .exec();
  }

  /**
   * Records an error shown as `last_error`. Only delivery failures (`delivery`, the default)
   * count towards `connected: false`; a model failure says nothing about the channel.
   */
  async recordFailure(
    name: string,
    error: string,
    options: { credentialsRefused?: boolean; delivery?: boolean } = {},
  ): Promise<void> {
    const multi = this.redis
      .multi()
      .hincrby(this.keys.channel(name), 'failures', options.delivery === false ? 0 : 1)
      .hset(this.keys.channel(name), 'last_error', error.slice(0, 500), 'last_error_at', new Date().toISOString());
    if (options.credentialsRefused) multi.hset(this.keys.channel(name), 'credentials_refused', '1');
    await multi.exec();
  }

  async read(hooks: { name: string; type: string }[]): Promise<ChannelStatus[]> {
    if (hooks.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const hook of hooks) pipeline.hgetall(this.keys.channel(hook.name));
    const results = (await pipeline.exec()) ?? [];
    return hooks.map((hook, i) => {
      const fields = (results[i]?.[1] ?? {}) as Record<string, string>;
      return {
        name: hook.name,
        type: hook.type,
        connected: Number(fields.failures ?? 0) < FAILING_AFTER && fields.credentials_refused !== '1',
        last_inbound_at: fields.last_inbound_at ?? null,
        last_outbound_at: fields.last_outbound_at ?? null,
        last_error: fields.last_error ?? null,
        messages_in: Number(fields.messages_in ?? 0),
        messages_out: Number(fields.messages_out ?? 0),
      };
    });
  }
}
