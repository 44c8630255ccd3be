import { DeliveryError, routeDelivery } from '@switchboard/channels';
import {
  type ExchangeState,
  FRESH_EXCHANGE,
  finalFields,
  isLastAttempt,
  JOB_FIELDS,
  type JobResult,
  type Reply,
} from '@switchboard/hub';
import { AppError } from '@switchboard/protocol';
import { DelayedError, type Job, UnrecoverableError, WaitingError } from 'bullmq';
import { answerOnce } from './answer.js';
import { deliverRest } from './deliver.js';
import { reportOutcome } from './delivery-events.js';
import type { WorkerDeps } from './deps.js';
import { answerLive } from './live-answer.js';
import { earlierProgress, type MessageJob, NewerReleaseJob, ranBefore, readMessageJob } from './message-job.js';
import { AwaitingApproval } from './tool-loop.js';

/** How long a job released on shutdown waits before another worker may take it. */
const RELEASE_DELAY_MS = 1_000;
/** How long a newer release's job waits before a worker looks at it again (a rolling upgrade lasts minutes). */
const NEWER_RELEASE_DELAY_MS = 30_000;

/**
 * One hook message: take its turn in the conversation, answer once, deliver, leave the line.
 *
 * - Failures a retry can cure (model 429/5xx/time-outs, delivery network errors, 5xx, 429) are
 *   thrown for the job's back-off, which honours their Retry-After; the rest fail the job at once.
 * - A job that fails for good still leaves its conversation's line, so the next message runs.
 * - The signal fires on shutdown (after the grace period), or when the job's lock was found gone
 *   (another run takes it): a model call is cancelled, delivery stops between pieces, and the job
 *   goes back to the queue without spending an attempt.
 */
export function createProcessor(deps: WorkerDeps) {
  // Three parameters: BullMQ passes the abort signal only to processors that declare it.
  return async (job: Job, token: string | undefined, signal: AbortSignal | undefined): Promise<JobResult> => {
    let message: MessageJob;
    try {
      message = readMessageJob(job, deps.hooks);
    } catch (err) {
      throw await leftInQueue(deps, job, token, err);
    }
    const abort = signal ?? new AbortController().signal;
    const { hub } = deps;
    // A run after the first may be a parked message woken early, or a retried one behind others.
    if (message.queued.waits || job.attemptsStarted > 1) {
      await hub.order.takeTurn(job, token, message.conversation, message.queued.receivedAt);
    }
    // A first run has done nothing before: nothing to read (and no await).
    let earlier = ranBefore(message) ? await earlierProgress(hub, message) : FRESH_EXCHANGE;
    if (earlier.retried && (await hub.order.rejoin(message.conversation, message.jobId))) {
      // An operator's retry of a job that failed for good: back into its line, then a turn as any.
      await hub.order.takeTurn(job, token, message.conversation, message.queued.receivedAt);
      earlier = { ...earlier, done: false, retried: false };
    }
    if (earlier.done) {
      // Its release went through but BullMQ never heard: repeat it, which wakes the next message again.
      await hub.order.release(message.conversation, message.jobId, { [JOB_FIELDS.done]: 1 }, released(message));
      return finishedEarlier(deps, message, earlier);
    }
    try {
      const { action, reply: fixed, text } = message.queued.message;
      if (action === 'remember') {
        await hub.exchange.remember(message.jobId, message.conversation, text);
        await hub.order.release(message.conversation, message.jobId, finalFields(0), released(message));
        return { reply: null, model: null, parts: 0 };
      }
      if (action === 'reset') {
        await hub.exchange.forget(message.conversation);
        if (fixed === undefined) {
          await hub.order.release(message.conversation, message.jobId, finalFields(0), released(message));
          return { reply: null, model: null, parts: 0 };
        }
      }
      // A chat is answered by the model; `say` and a confirmed `reset` by their fixed reply, delivered the same way.
      const { reply, parts } = message.hook.openLive
        ? await answerLive(deps, message, earlier, abort)
        : await answerWhole(deps, message, earlier, abort);
      await hub.order.release(message.conversation, message.jobId, finalFields(parts), released(message));
      deps.channelStats.recordOutbound(message.hook.name);
      const reported = reportOutcome(deps, message, { delivered: true });
      if (reported) await reported;
      return { reply: reply.text, model: reply.model, parts };
    } catch (err) {
      if (err instanceof AwaitingApproval && !abort.aborted) {
        // Waits for a yes without holding this worker: delayed until the deadline, promoted by an approval.
        await message.job.moveToDelayed(err.until, token);
        throw new DelayedError();
      }
      throw await failure(deps, message, err, token, abort);
    }
  };
}

/** How a message leaves its line: its dedupe key marked done only when it has one. */
function released(message: MessageJob): { deduped: boolean } {
  return { deduped: message.queued.message.dedupeKey !== null };
}

/**
 * What to throw for a job this release could not read. A newer release's job is parked for a newer
 * worker (BullMQ's DelayedError: no attempt is spent), so a rolling upgrade that starts with the API
 * processes loses nothing; the rest that cannot be read fail for good (the error as it is).
 */
async function leftInQueue(deps: WorkerDeps, job: Job, token: string | undefined, err: unknown): Promise<unknown> {
  if (!(err instanceof NewerReleaseJob)) return err;
  deps.logger.warn('a newer release queued this job: left in the queue for a newer worker', {
    jobId: job.id,
    version: err.version,
  });
  await job.moveToDelayed(Date.now() + NEWER_RELEASE_DELAY_MS, token);
  return new DelayedError();
}

/** A reply answered whole, then delivered piece by piece (hooks that do not stream). */
async function answerWhole(
  deps: WorkerDeps,
  message: MessageJob,
  earlier: ExchangeState,
  abort: AbortSignal,
): Promise<{ reply: Reply; parts: number }> {
  const reply = await answerOnce(deps, message, earlier, abort);
  return { reply, parts: await deliverRest(deps, message, reply, earlier.delivered, abort) };
}

/**
 * An earlier run left the line for good but died before BullMQ heard of it: report what that run
 * did, without calling the model or the platform again.
 */
function finishedEarlier(deps: WorkerDeps, message: MessageJob, earlier: ExchangeState): JobResult {
  const { action, reply } = message.queued.message;
  if (action === 'remember' || (action === 'reset' && reply === undefined)) return { reply: null, model: null, parts: 0 };
  const parts = earlier.reply ? deliveryHook(deps, message).split(earlier.reply.text).length : 0;
  if (!earlier.reply || earlier.delivered < parts) throw new UnrecoverableError('The message failed for good in an earlier run.');
  return { reply: earlier.reply.text, model: earlier.reply.model, parts };
}

/** The hook whose pieces the reply was cut into: the one it is delivered through, if that is still configured. */
function deliveryHook(deps: WorkerDeps, message: MessageJob) {
  try {
    return routeDelivery(deps.hooks, message.hook, message.queued.message).hook;
  } catch {
    return message.hook;
  }
}

/**
 * What to throw for a failed attempt: the job back to the queue on shutdown; an
 * UnrecoverableError for what no retry cures; the error itself (with its Retry-After) otherwise.
 * A failure that ends the job also takes it out of its conversation's line and is counted.
 */
async function failure(
  deps: WorkerDeps,
  message: MessageJob,
  err: unknown,
  token: string | undefined,
  signal: AbortSignal,
): Promise<Error> {
  if (signal.aborted) {
    // Released, not failed: another worker takes it up where this one stopped. Due a moment from
    // now rather than waiting at once: this closing worker may still be blocked in BullMQ's fetch,
    // which wakes on the job's return and would take a waiting job straight back (BullMQ does not
    // check for closing there), holding it until its lock ran out; a job not yet due it leaves.
    await message.job.moveToDelayed(Date.now() + RELEASE_DELAY_MS, token).catch(() => {});
    return new WaitingError();
  }
  const hook = message.hook.name;
  let final = false;
  if (err instanceof AppError) {
    deps.channelStats.recordFailure(hook, `model: ${err.message}`, { delivery: false }).catch(() => {});
    final = !err.isRetryable;
  } else if (err instanceof DeliveryError) {
    const { credentialsRefused } = err.options;
    deps.channelStats.recordFailure(hook, `delivery: ${err.message}`, { credentialsRefused }).catch(() => {});
    final = !err.retryable;
  }
  const error = err instanceof Error ? err : new Error(String(err));
  if (!final && !isLastAttempt(message.job)) return error;
  await deps.hub.order.release(message.conversation, message.jobId, { [JOB_FIELDS.done]: 1 }, released(message)).catch(() => {});
  // A caller reading the job's feed learns it is over (one that comes later reads it from the job).
  if (message.hook.channel.live?.feed && (await deps.hub.feeds.watched(message.jobId).catch(() => true))) {
    await deps.hub.feeds.append(message.jobId, 'error', { message: 'The message could not be answered.' }).catch(() => {});
  }
  await reportOutcome(deps, message, { delivered: false, error: error.message });
  return final ? new UnrecoverableError(error.message) : error;
}
