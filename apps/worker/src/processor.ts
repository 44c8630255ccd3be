import { DeliveryError } from '@switchboard/channels';
import { AppError } from '@switchboard/protocol';
import { type InboundJobData, type InboundJobResult, inboundJobSchema } from '@switchboard/queue';
import { type Job, UnrecoverableError } from 'bullmq';
import { answerOnce } from './answer.js';
import { waitForPredecessor } from './conversation-order.js';
import { deliverRemaining } from './deliver.js';
import type { WorkerDeps } from './deps.js';

/**
 * One inbound message: wait for the conversation's previous message, answer once, deliver.
 * Failures that a retry can cure (model 5xx/429/time-outs, delivery network errors, 5xx, 429)
 * are thrown for BullMQ's back-off; the rest fail the job at once (UnrecoverableError).
 */
export function createProcessor(deps: WorkerDeps) {
  return async (job: Job<InboundJobData, InboundJobResult>, token?: string): Promise<InboundJobResult> => {
    const parsed = inboundJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('The job data is not an inbound message.');
    const { hook: hookName, message, after } = parsed.data;
    const hook = deps.hooks.get(hookName);
    if (!hook) throw new UnrecoverableError(`The hook '${hookName}' is no longer configured.`);

    await waitForPredecessor(job, token, deps.queue, after, deps.settings.config.worker.orderRecheckMs);
    const conversation = `${hookName}:${message.conversation}`;
    if (message.action === 'reset') {
      await deps.memory.clear(conversation);
      return { reply: null, model: null, parts: 0 };
    }

    let reply: Awaited<ReturnType<typeof answerOnce>>;
    try {
      reply = await answerOnce(deps, job, hook, conversation);
    } catch (err) {
      if (err instanceof AppError) {
        await deps.channelStats.recordFailure(hookName, `model: ${err.message}`, { delivery: false }).catch(() => {});
        if (!err.isRetryable) throw new UnrecoverableError(err.message);
      }
      throw err;
    }

    try {
      const parts = await deliverRemaining(job, hook, reply);
      await deps.channelStats.recordOutbound(hookName);
      return { reply: reply.text, model: reply.model, parts };
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      await deps.channelStats
        .recordFailure(hookName, `delivery: ${err.message}`, { credentialsRefused: err.options.credentialsRefused })
        .catch(() => {});
      if (!err.retryable) throw new UnrecoverableError(err.message);
      throw err;
    }
  };
}
