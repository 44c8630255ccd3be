import type { Hook } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { type ExchangeState, FRESH_EXCHANGE, type Hub } from '@switchboard/hub';
import { conversationKey, type LegacyProgress, type QueuedMessage, readQueuedMessage } from '@switchboard/protocol';
import { type Job, UnrecoverableError } from 'bullmq';

/** One queued hook message as the processor works on it. */
export interface MessageJob {
  job: Job;
  jobId: string;
  queued: QueuedMessage;
  /** Progress a job of an older release kept in its data. */
  legacy: LegacyProgress | null;
  hook: Hook<HookConfig>;
  /** The conversation key (memory, ordering). */
  conversation: string;
}

/** Reads the job in any version this release understands, or fails it for good. */
export function readMessageJob(job: Job, hooks: Map<string, Hook<HookConfig>>): MessageJob {
  const read = readQueuedMessage(job.data);
  if (!read || !job.id) throw new UnrecoverableError('The job data is not a hook message this release can read.');
  const hook = hooks.get(read.message.hook);
  if (!hook) throw new UnrecoverableError(`The hook '${read.message.hook}' is no longer configured.`);
  return {
    job,
    jobId: job.id,
    queued: read.message,
    legacy: read.legacy,
    hook,
    conversation: conversationKey(read.message.hook, read.message.message.conversation),
  };
}

/**
 * What earlier runs of the job got done. Only a job that ran before can have done anything, so a
 * first run reads nothing; a job of an older release adds what its data says.
 */
export async function earlierProgress(hub: Hub, message: MessageJob): Promise<ExchangeState> {
  const ranBefore = message.job.attemptsStarted > 1 || message.legacy !== null;
  const state = ranBefore ? await hub.exchange.state(message.jobId) : FRESH_EXCHANGE;
  if (!message.legacy) return state;
  return { ...state, delivered: Math.max(state.delivered, message.legacy.delivered) };
}
