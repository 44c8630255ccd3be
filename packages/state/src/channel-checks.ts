import { randomUUID } from 'node:crypto';
import type { ChannelStats } from './channel-stats.js';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { type StateLog, settlesWithin } from './redis.js';

/** One hook's credential check (see `credentialChecks` of @switchboard/channels). */
export interface ChannelCheck {
  hook: string;
  /** Changes with the hook's configuration: new credentials are checked at once. */
  fingerprint: string;
  check(): Promise<{ connected: boolean | null; reason?: string }>;
}

/**
 * Checks each hook's credentials with its platform at start-up and every `intervalMs`, and records
 * the result in the channel stats, so every process reports it. However many API and worker
 * processes run, one checks each hook per interval: it takes a lock in Redis that lives a little
 * less than an interval, and the others find it taken.
 */
export class ChannelChecks {
  readonly #id = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly stats: ChannelStats,
    private readonly checks: readonly ChannelCheck[],
    private readonly options: { intervalMs: number; log?: StateLog },
  ) {}

  /** Checks now (or once Redis first answers) and then every interval; 0 or no checks: never. */
  start(): void {
    if (this.options.intervalMs === 0 || this.checks.length === 0) return;
    if (this.redis.status === 'ready') this.#run();
    else this.redis.once('ready', () => this.#run());
    this.#timer = setInterval(() => this.#run(), this.options.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and waits a moment for a check in progress (a Redis outage must not hold a shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#running) await settlesWithin(this.#running, 1_000);
  }

  /** Checks every hook whose lock this process gets; one round at a time. */
  async runOnce(): Promise<void> {
    const ttl = Math.max(1, Math.floor(this.options.intervalMs * 0.9));
    await Promise.all(
      this.checks.map(async ({ hook, fingerprint, check }) => {
        try {
          const won = await this.redis.set(this.keys.channelCheck(hook, fingerprint), this.#id, 'PX', ttl, 'NX');
          if (won !== 'OK') return;
          const result = await check();
          await this.stats.recordCheck(hook, result);
          if (result.connected === false) this.options.log?.warn('channel check failed', { hook, reason: result.reason });
        } catch {
          // Redis away: the next round tries again; the check itself never throws for the platform's answer
        }
      }),
    );
  }

  #run(): void {
    if (this.#running) return;
    this.#running = this.runOnce().finally(() => {
      this.#running = undefined;
    });
  }
}
