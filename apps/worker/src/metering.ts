import type { ChatMessage } from '@switchboard/protocol';
import type { MeteredCall } from '@switchboard/state';
import type { WorkerDeps } from './deps.js';
import type { MessageJob } from './message-job.js';

/**
 * Meters the model call made for a hook message: refused with `insufficient_quota` (which fails
 * the job for good) when the hook's budget is spent, else its estimate is reserved; the caller
 * passes `onUsage` to the gateway and closes the call once it is over.
 */
export function meterHookCall(deps: WorkerDeps, job: MessageJob, messages: ChatMessage[]): Promise<MeteredCall> {
  const { name, config } = job.hook;
  return deps.meter.open({
    key: '-',
    hook: name,
    model: config.model,
    budgets: config.budget ? [{ subject: `hook:${name}`, limits: config.budget }] : [],
    // About 4 characters of JSON per token, as for /v1 requests.
    promptEstimate: () => Math.ceil(JSON.stringify(messages).length / 4),
    owner: `Hook '${name}'`,
  });
}
