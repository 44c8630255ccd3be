import type { InboundMessage } from '@switchboard/channels';
import { serviceUnavailable } from '@switchboard/protocol';
import { enqueueInbound } from '@switchboard/queue';
import type { AppDeps } from '../deps.js';

/**
 * Accepts one verified inbound message: queued durably first (the platform is answered only
 * after BullMQ has written the job), then counted. With Redis away it refuses with 503, so a
 * platform retries instead of believing a message was taken.
 */
export async function acceptMessage(deps: AppDeps, hook: string, message: InboundMessage): Promise<string> {
  const queue = await deps.readyQueue();
  const { worker } = deps.settings.config;
  let queued: { jobId: string; duplicate: boolean };
  try {
    queued = await enqueueInbound(queue, deps.redis, deps.keys, hook, message, {
      attempts: worker.attempts,
      backoffMs: worker.backoffMs,
    });
  } catch (err) {
    deps.logger.warn('enqueue failed', { hook, error: (err as Error).message });
    throw serviceUnavailable('The message could not be queued; try again shortly.', 'queue_unavailable');
  }
  if (!queued.duplicate) {
    const counted = [deps.channelStats.recordInbound(hook), deps.sessions.touch(`hook:${hook}:${message.conversation}`)];
    await Promise.allSettled(counted);
  }
  deps.logger.info('hook message queued', { hook, job_id: queued.jobId, duplicate: queued.duplicate });
  return queued.jobId;
}
