import type { Hook } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { type Accepted, acceptMessage as queueMessage } from '@switchboard/hub';
import { conversationKey, type InboundMessage, notFound, serviceUnavailable } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';

/** The hook named in the path, or a 404 in the JSON error shape. */
export function findHook(deps: Pick<AppDeps, 'hooks'>, name: string | undefined): Hook<HookConfig> {
  const hook = deps.hooks.get(name ?? '');
  if (!hook) throw notFound(`There is no hook named '${name}'.`, 'hook_not_found');
  return hook;
}

/** What accepting a message uses: the queue, and what counts it. */
export type AcceptDeps = Pick<AppDeps, 'readyHub' | 'tracing' | 'logger' | 'metrics' | 'channelStats' | 'sessions'>;

/**
 * Accepts one verified inbound message: queued durably first (the platform is answered only
 * after BullMQ has written the job), then counted. With Redis away it refuses with 503, so a
 * platform retries instead of believing a message was taken.
 */
export async function acceptMessage(deps: AcceptDeps, hook: string, message: InboundMessage): Promise<Accepted> {
  const hub = await deps.readyHub();
  let queued: Accepted;
  try {
    const { tracing } = deps;
    queued = tracing
      ? await tracing.span('queue hook message', { kind: 'producer', attributes: { 'switchboard.hook': hook } }, () =>
          queueMessage(hub, hook, message, Date.now(), tracing.traceparent()),
        )
      : await queueMessage(hub, hook, message);
  } catch (err) {
    deps.logger.warn('enqueue failed', { hook, error: (err as Error).message });
    throw serviceUnavailable('The message could not be queued; try again shortly.', 'queue_unavailable');
  }
  if (!queued.replicated) {
    deps.logger.warn('message accepted before its replicas confirmed it (redis.replicaAcks)', { hook, job_id: queued.jobId });
  }
  if (!queued.duplicate) {
    deps.metrics?.hookQueued.inc({ hook });
    deps.channelStats.recordInbound(hook);
    deps.sessions.touch(`hook:${conversationKey(hook, message.conversation)}`);
  }
  return queued;
}

/**
 * The access decision (access-gate.ts), with Redis away answered as a 503 like a failed enqueue:
 * the platform retries rather than believing its message was taken or refused.
 */
export async function gated<T>(deps: Pick<AppDeps, 'logger'>, decide: () => Promise<T>): Promise<T> {
  try {
    return await decide();
  } catch (err) {
    deps.logger.warn('access check failed', { error: (err as Error).message });
    throw serviceUnavailable('The message could not be checked; try again shortly.', 'queue_unavailable');
  }
}
