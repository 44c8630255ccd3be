import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';

/**
 * Polite sending: every call that puts a message on a platform target (a Telegram chat, a Slack
 * channel, a Discord interaction) first takes a turn from a limiter that all workers share, and a
 * platform's "wait" (429 `retry_after`, an exhausted rate-limit bucket) makes every worker wait.
 * The channels say which target a message goes to and which rules apply there; the worker brings
 * the shared limiter (@switchboard/state's SendLimiter, in Redis).
 */

/** At most `count` sends in any `perMs` window. */
export interface SendRule {
  count: number;
  perMs: number;
}

export const sendRuleSchema = z.strictObject({
  /** Sends allowed in one window. */
  count: z.int().min(1).max(10_000),
  /** The window, ms. */
  perMs: z.int().min(1).max(3_600_000),
});

/**
 * A channel's `sendLimits` config key: named rules with the platform's documented defaults, each
 * replaceable per hook (tests scale them down to stay fast).
 */
export function sendLimitsSchema<const Names extends string>(defaults: Record<Names, SendRule>) {
  const shape = Object.fromEntries(
    Object.entries<SendRule>(defaults).map(([name, rule]) => [name, sendRuleSchema.default(rule)]),
  ) as Record<Names, z.ZodDefault<typeof sendRuleSchema>>;
  return z.strictObject(shape).default(defaults as never);
}

/** The limiter shared by all workers. */
export interface SendGate {
  /**
   * Resolves when the caller may send to `target` (each rule holds over every worker's sends),
   * with the turn's id for `sent`.
   */
  take(target: string, rules: readonly SendRule[], signal?: AbortSignal): Promise<string | undefined>;
  /** The send of `turn` is over: later turns count from now, so a send that went late never makes the next one early. */
  sent(target: string, turn: string): Promise<void>;
  /** The platform asked that nothing be sent to `target` for `ms`: every worker waits. */
  pause(target: string, ms: number): Promise<void>;
}

/** Where a message's replies go, as far as the limiter is concerned. */
export interface SendTarget {
  /** Names the target within its hook (a chat id, a channel id, a hash of an interaction token). */
  key: string;
  rules: readonly SendRule[];
}

/** One target's turns, bound for one reply. */
export interface Polite {
  /** Waits for the target's next turn; resolves with what to call once the send is over. */
  turn(): Promise<() => Promise<void>>;
  /** Every worker waits `ms` before the target's next send. */
  pause(ms: number): Promise<void>;
}

/** A target that is never limited (no limiter, or a channel without targets). */
export const UNLIMITED: Polite = { turn: async () => async () => {}, pause: async () => {} };

export function politeFor(gate: SendGate | undefined, hook: string, target: SendTarget | null, signal?: AbortSignal): Polite {
  if (!gate || !target) return UNLIMITED;
  const key = `${hook}:${target.key}`;
  return {
    async turn() {
      const turn = await gate.take(key, target.rules, signal);
      // Unrecorded (Redis away), the turn counts as going until it leaves the window: later sends
      // wait longer, never go early.
      return async () => {
        if (turn !== undefined) await gate.sent(key, turn).catch(() => {});
      };
    },
    pause: (ms) => gate.pause(key, ms),
  };
}

/**
 * Takes a turn, makes the call, then tells the limiter the send is over; when the platform answers that it is being sent too much,
 * the wait it asked for is shared with every worker before the error goes on to the job's retry.
 */
export async function politely<T>(polite: Polite, call: () => Promise<T>): Promise<T> {
  const over = await polite.turn();
  try {
    return await call();
  } catch (err) {
    if (err instanceof DeliveryError && err.retryable && err.retryAfterMs !== undefined) await polite.pause(err.retryAfterMs);
    throw err;
  } finally {
    await over();
  }
}
