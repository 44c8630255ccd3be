import type { MeteredCall } from '@switchboard/state';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import type { ApiClient } from '../middleware/api-key-auth.js';

export interface MeterRequest {
  /** The model as requested. */
  model: string;
  /** What it resolved to (`Gateway.plan`'s name: a route or deployment id), also tried for the price. */
  resolvedModel: string;
  /** What the prompt is made of (messages, input), for the budget's estimate. */
  prompt: unknown;
  /** `max_tokens`, `max_completion_tokens` or `max_output_tokens`, when the request caps its answer. */
  maxOutput?: number | null;
}

/**
 * Meters one /v1 request through the state package's `UsageMeter` (estimate, price, budget,
 * settle): refused (429 `insufficient_quota`) when its API key's budget is spent, else the
 * estimate is reserved. The caller passes the call's `onUsage` to the gateway and `close()`s it
 * once the route is done, however it ended — after a stream has ended, so a stream the client
 * left is still counted (a response's `close` event would come first and give the reservation
 * back before the usage arrived). A request without a budget is metered at once, not in a promise.
 */
export function meterRequest(
  ctx: Context,
  deps: Pick<AppDeps, 'usage'>,
  request: MeterRequest,
): MeteredCall | Promise<MeteredCall> {
  const client = ctx.state.client as ApiClient | undefined;
  return deps.usage.meter.open({
    payer: { key: client?.id ?? '-', budget: client?.budget },
    model: request.model,
    resolvedModel: () => request.resolvedModel,
    prompt: request.prompt,
    maxOutput: request.maxOutput,
  });
}
