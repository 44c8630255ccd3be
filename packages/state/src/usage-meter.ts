import type { FileConfig } from '@switchboard/config';
import { QuotaExceeded, serviceUnavailable, type Usage } from '@switchboard/protocol';
import type { BudgetLimits, Reservation } from './budget-reserve.js';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { UsageLedger } from './usage-ledger.js';

/** A model's price per million prompt (`input`) and completion (`output`) tokens. */
export interface Price {
  input: number;
  output: number;
}

/**
 * Who pays for a model call and under which budget: an API key (a /v1 request; `-` when the
 * request has none) or a hook (the model calls its messages make). The budget is the
 * configuration's `budget` object, the same for both.
 */
export type Payer = { key: string; budget?: BudgetLimits | undefined } | { hook: string; budget?: BudgetLimits | undefined };

/** One model call to meter: who pays, for which model, and what it asks (for the estimate). */
export interface MeteredCallSpec {
  payer: Payer;
  /** The model name as requested. */
  model: string;
  /** Also tried for the estimate's price (e.g. what `default` stands for); only asked when a budget applies. */
  resolvedModel?: () => string | undefined;
  /** What the prompt is made of (messages, input); estimated only when a budget applies. */
  prompt: unknown;
  /** The request's output cap (`max_tokens` and kin), reserved on top of the prompt. */
  maxOutput?: number | null | undefined;
}

/**
 * A budget's estimate of a prompt: about 4 characters of its JSON per token. Cheap on purpose (it
 * runs before every call that has a budget); the usage the upstream reports settles it.
 */
export const estimatePromptTokens = (prompt: unknown) => Math.ceil(JSON.stringify(prompt ?? '').length / 4);

/** The payer's budget counters' subject, and whose budget a refusal names. */
function describePayer(payer: Payer): { subject: string; owner: string } {
  if ('hook' in payer) return { subject: `hook:${payer.hook}`, owner: `Hook '${payer.hook}'` };
  return { subject: `key:${payer.key}`, owner: 'This API key' };
}

/** A call in progress: pass `onUsage` to the gateway, and `close()` once it is over, however it ended. */
export interface MeteredCall {
  onUsage?: (usage: Usage, servedModel: string) => void;
  close(): void;
}

const NOTHING: MeteredCall = { close() {} };

/**
 * Metering of a model call, the one home both apps call: the estimate, the price, the budget
 * check and reserve, and the settle or give-back. Budgets are checked and the call's estimate
 * reserved in one Redis round trip before the upstream is asked (only when a budget applies); the
 * usage is recorded after, fire-and-forget, in one MULTI that also settles the reservation. A
 * call without budgets and with usage off costs nothing here.
 */
export class UsageMeter {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly pricing: Readonly<Record<string, Price>>,
    private readonly options: { recordUsage: boolean; onError: (err: unknown) => void },
  ) {}

  /** Writes the usage records gathered and not yet written (at shutdown). */
  close(): Promise<void> {
    return this.ledger.close();
  }

  /** The price for the model that served (its id first, then the requested name), if any. */
  priceOf(...names: (string | undefined)[]): Price | undefined {
    for (const name of names) if (name !== undefined && Object.hasOwn(this.pricing, name)) return this.pricing[name];
    return undefined;
  }

  /**
   * A call without a budget is opened at once (no promise, no turn of the event loop); one with a
   * budget once its estimate is reserved.
   * @throws QuotaExceeded (the promise rejects) when a budget of the call is already spent; a 503
   * when the budgets cannot be read.
   */
  open(spec: MeteredCallSpec): MeteredCall | Promise<MeteredCall> {
    const limits = spec.payer.budget;
    const budgeted = limits !== undefined && (limits.tokensPerDay !== undefined || limits.costPerMonth !== undefined);
    if (budgeted) return this.#reserve(spec, limits);
    return this.options.recordUsage ? this.#call(spec, NO_HOLDS) : NOTHING;
  }

  async #reserve(spec: MeteredCallSpec, limits: BudgetLimits): Promise<MeteredCall> {
    const payer = describePayer(spec.payer);
    const prompt = estimatePromptTokens(spec.prompt);
    const output = spec.maxOutput ?? 0;
    const price = this.priceOf(spec.model, spec.resolvedModel?.());
    const cost = price ? (prompt * price.input + output * price.output) / 1e6 : 0;
    const tokens = prompt + output;
    // Fails closed: with Redis away a budgeted call is refused (503) rather than spend unchecked.
    const result = await this.ledger.reserve([{ subject: payer.subject, limits }], { tokens, cost }).catch((err: unknown) => {
      this.options.onError(err);
      throw serviceUnavailable(
        'Budgets cannot be checked right now (Redis is not reachable); try again shortly.',
        'budget_unavailable',
      );
    });
    if (!result.ok) {
      throw new QuotaExceeded(
        `${payer.owner} is over its budget (insufficient_quota): ${result.limit} ${result.limitValue} reached ` +
          `(${round(result.spent)} spent). It resets at ${result.resetsAt.toISOString()}.`,
      );
    }
    return this.#call(spec, result.reservation);
  }

  #call(spec: MeteredCallSpec, reservation: Reservation): MeteredCall {
    let settled = false;
    return {
      onUsage: (usage, servedModel) => {
        if (settled) return;
        settled = true;
        const price = this.priceOf(servedModel, spec.model);
        const cost = price ? (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / 1e6 : null;
        const { payer } = spec;
        const entry = {
          key: 'hook' in payer ? '-' : payer.key,
          model: spec.model,
          hook: 'hook' in payer ? payer.hook : '-',
          promptTokens: usage.prompt_tokens,
          completionTokens: usage.completion_tokens,
          cost,
        };
        this.ledger.record(entry, reservation).catch(this.options.onError);
      },
      close: () => {
        if (settled) return;
        settled = true;
        if (reservation.holds.length) this.ledger.release(reservation).catch(this.options.onError);
      },
    };
  }
}

/** A call that reserved nothing. */
const NO_HOLDS: Reservation = { holds: [] };

/** Costs and token counts as people read them (no float noise). */
export const round = (value: number) => Math.round(value * 1e10) / 1e10;

/** The ledger and meter as both apps build them from the config; `onError` hears failed writes (never thrown). */
export function usageAccounting(
  redis: RedisClient,
  keys: StateKeys,
  config: Pick<FileConfig, 'usage' | 'pricing'>,
  onError: (err: unknown) => void,
): { ledger: UsageLedger; meter: UsageMeter } {
  const recordUsage = config.usage.enabled;
  const ledger = new UsageLedger(redis, keys, { recordUsage, retentionDays: config.usage.retentionDays });
  return { ledger, meter: new UsageMeter(ledger, config.pricing, { recordUsage, onError }) };
}
