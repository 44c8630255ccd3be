import type { Hook } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { type ExchangeState, FRESH_EXCHANGE, type Hub } from '@switchboard/hub';
import {
  conversationKey,
  HOOK_MESSAGE_VERSION,
  type LegacyProgress,
  type QueuedMessage,
  readQueuedMessage,
} from '@switchboard/protocol';
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

/**
 * A job queued by a newer release than this worker's: during a rolling upgrade the API processes
 * may be ahead of the workers. It is not this worker's to fail; it goes back to the queue for a
 * newer worker.
 */
export class NewerReleaseJob extends Error {
  constructor(readonly version: number) {
    super(`The job is a hook message of version ${version}; this release reads up to ${HOOK_MESSAGE_VERSION}.`);
  }
}

/** Reads the job in any version this release understands, or fails it for good (a newer release's: NewerReleaseJob). */
export function readMessageJob(job: Job, hooks: Map<string, Hook<HookConfig>>): MessageJob {
  const read = readQueuedMessage(job.data);
  const version = (job.data as { v?: unknown } | null)?.v;
  if (!read && typeof version === 'number' && version > HOOK_MESSAGE_VERSION) throw new NewerReleaseJob(version);
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

/** Whether an earlier run (or an older release, in the job's data) may have done part of the job. */
export function ranBefore(message: MessageJob): boolean {
  return message.job.attemptsStarted > 1 || message.legacy !== null;
}

/**
 * What earlier runs of the job got done. Only a job that ran before can have done anything, so a
 * first run reads nothing; a job of an older release adds what its data says.
 */
export async function earlierProgress(hub: Hub, message: MessageJob): Promise<ExchangeState> {
  const state = ranBefore(message) ? await hub.exchange.state(message.jobId) : FRESH_EXCHANGE;
  if (!message.legacy) return state;
  return { ...state, delivered: Math.max(state.delivered, message.legacy.delivered) };
}
