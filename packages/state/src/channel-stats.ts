import { BatchedWriter } from './batched-writer.js';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';

export interface ChannelStatus {
  name: string;
  type: string;
  /**
   * From evidence only: true after a passed credential check or a delivered reply, false after a
   * refused check, refused credentials or 3 failed deliveries in a row (the latest evidence
   * wins), null (unknown) before there is any.
   */
  connected: boolean | null;
  /** When the platform last answered a credential check. */
  checked_at: string | null;
  last_inbound_at: string | null;
  last_outbound_at: string | null;
  last_error: string | null;
  messages_in: number;
  messages_out: number;
}

/** After this many delivery failures in a row a channel shows as not connected. */
const FAILING_AFTER = 3;

interface Pending {
  in: number;
  out: number;
  lastIn?: string;
  lastOut?: string;
}

/**
 * Per-hook counters in one Redis hash each, so every API and worker process reports the same
 * figures. Messages in and out are counted in the process and written at most `flushMs` after the
 * first (one round trip for all hooks, not two per message): /status lags by at most that long,
 * and a process that dies loses at most that much counting; counts whose write failed are kept
 * for the next. Failures are written at once, with what is pending before them, so a success
 * counted before a failure never clears it. A channel's `connected` is what the latest evidence
 * says (see `ChannelStatus.connected`).
 */
export class ChannelStats {
  /** Hook name → what was counted since the last write. */
  readonly #writer: BatchedWriter<Map<string, Pending>>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    options: { flushMs?: number } = {},
  ) {
    this.#writer = new BatchedWriter<Map<string, Pending>>({
      open: () => new Map(),
      write: (pending) => {
        const multi = this.redis.multi();
        this.#addTo(multi, pending);
        return multi.exec();
      },
      onFailure: { keep: (failed, gathering) => this.#merge(failed, gathering) },
      flushMs: options.flushMs,
    });
  }

  recordInbound(name: string, at = new Date()): void {
    const pending = this.#entry(name);
    pending.in++;
    pending.lastIn = at.toISOString();
  }

  recordOutbound(name: string, at = new Date()): void {
    const pending = this.#entry(name);
    pending.out++;
    pending.lastOut = at.toISOString();
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
    // What is pending goes in the same MULTI, before the failure (lost with it if it fails).
    await this.#writer.writeWith((pending) => {
      const multi = this.redis.multi();
      if (pending) this.#addTo(multi, pending);
      multi
        .hincrby(this.keys.channel(name), 'failures', options.delivery === false ? 0 : 1)
        .hset(this.keys.channel(name), 'last_error', error.slice(0, 500), 'last_error_at', new Date().toISOString());
      if (options.credentialsRefused) multi.hset(this.keys.channel(name), 'credentials_refused', '1');
      return multi.exec();
    });
  }

  /**
   * Records a credential check: a pass is evidence the channel works (it clears earlier delivery
   * failures and refused credentials), a refusal marks it disconnected with the reason.
   * "Unknown" (`connected: null`) records nothing.
   */
  async recordCheck(name: string, check: { connected: boolean | null; reason?: string }, at = new Date()): Promise<void> {
    if (check.connected === null) return;
    const key = this.keys.channel(name);
    const when = at.toISOString();
    if (check.connected) {
      await this.redis.hset(key, 'connected', '1', 'checked_at', when, 'failures', '0', 'credentials_refused', '0');
      return;
    }
    const error = `credentials: ${check.reason ?? 'refused'}`.slice(0, 500);
    await this.redis.hset(key, 'connected', '0', 'checked_at', when, 'last_error', error, 'last_error_at', when);
  }

  /** Writes what was counted since the last flush; on failure it stays pending for the next. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Writes what is pending (bounded: Redis may be away). */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
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
        connected: connectedFrom(fields),
        checked_at: fields.checked_at ?? null,
        last_inbound_at: fields.last_inbound_at ?? null,
        last_outbound_at: fields.last_outbound_at ?? null,
        last_error: fields.last_error ?? null,
        messages_in: Number(fields.messages_in ?? 0),
        messages_out: Number(fields.messages_out ?? 0),
      };
    });
  }

  #entry(name: string, gathering = this.#writer.batch): Pending {
    let pending = gathering.get(name);
    if (!pending) {
      pending = { in: 0, out: 0 };
      gathering.set(name, pending);
    }
    return pending;
  }

  /** Puts counts whose write failed back into those being gathered (later timestamps win). */
  #merge(failed: Map<string, Pending>, gathering: Map<string, Pending>): void {
    for (const [name, earlier] of failed) {
      const pending = this.#entry(name, gathering);
      pending.in += earlier.in;
      pending.out += earlier.out;
      pending.lastIn ??= earlier.lastIn;
      pending.lastOut ??= earlier.lastOut;
    }
  }

  /** Adds the writes of `counts` to `multi`. */
  #addTo(multi: ReturnType<RedisClient['multi']>, counts: Map<string, Pending>): void {
    for (const [name, pending] of counts) {
      const key = this.keys.channel(name);
      if (pending.in) multi.hincrby(key, 'messages_in', pending.in).hset(key, 'last_inbound_at', pending.lastIn!);
      if (pending.out) {
        multi.hincrby(key, 'messages_out', pending.out);
        multi.hset(key, 'last_outbound_at', pending.lastOut!, 'failures', '0', 'credentials_refused', '0', 'connected', '1');
      }
    }
  }
}

/** Refused credentials or repeated failed deliveries say "disconnected"; else the last check or delivery says. */
function connectedFrom(fields: Record<string, string>): boolean | null {
  if (fields.credentials_refused === '1' || Number(fields.failures ?? 0) >= FAILING_AFTER) return false;
  if (fields.connected === undefined) return null;
  return fields.connected === '1';
}
