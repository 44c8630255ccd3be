import type { LiveReply } from '@switchboard/channels';
import type { ExchangeState, Reply } from '@switchboard/hub';
import { type ChatMessage, unixSeconds } from '@switchboard/protocol';
import type { CallContext } from '@switchboard/providers';
import { answerTurn, fixedReply, promptFor, recordedReply } from './answer.js';
import type { WorkerDeps } from './deps.js';
import { hookCall } from './hook-call.js';
import type { ModelTurn } from './media/user-turn.js';
import type { MessageJob } from './message-job.js';
import { PacedUpdates } from './paced-updates.js';
import { answerWithTools, offersTools, recordToolAnswer } from './tool-loop.js';

/**
 * A message answered live: the platform shows the model thinking, then the reply as it streams
 * (paced by the hook's `streamIntervalMs`); once the stream is complete the reply is recorded with
 * the exchange in memory — exactly once, as for any reply — and only then is the final text put
 * in place. Everything the platform was sent is recorded in the job as it happens, so a run that
 * follows a crash edits the same messages; a run that finds the reply recorded only finishes it.
 */
export async function answerLive(
  deps: WorkerDeps,
  job: MessageJob,
  earlier: ExchangeState,
  signal: AbortSignal,
): Promise<{ reply: Reply; parts: number }> {
  const { hub, logger } = deps;
  const hook = job.hook;
  const log = (message: string, meta: Record<string, unknown> = {}) =>
    logger.debug(message, { job_id: job.jobId, hook: hook.name, ...meta });
  const live = hook.openLive!({
    message: job.queued.message,
    jobId: job.jobId,
    receivedAt: job.queued.receivedAt,
    earlier: earlier.live,
    delivered: earlier.delivered,
    rerun: job.job.attemptsStarted > 1,
    save: (progress, delivered) => hub.exchange.saveLive(job.jobId, progress, delivered),
    feed: hook.channel.live?.feed ? hub.feeds.writer(job.jobId) : undefined,
    signal,
    log,
  });
  try {
    const reply = await (recordedReply(deps, job, earlier) ?? fixedReply(deps, job) ?? streamReply(deps, job, live, signal, log));
    return { reply, parts: await live.finish(reply) };
  } finally {
    live.close();
  }
}

/** Not async: it hands on answerTurn's promise (an async function returning one costs ticks of its own). */
function streamReply(
  deps: WorkerDeps,
  job: MessageJob,
  live: LiveReply,
  signal: AbortSignal,
  log: (message: string, meta?: Record<string, unknown>) => void,
): Promise<Reply> {
  live.thinking();
  return answerTurn(deps, job, signal, (turn) => streamModelReply(deps, job, live, turn, signal, log));
}

async function streamModelReply(
  deps: WorkerDeps,
  job: MessageJob,
  live: LiveReply,
  turn: ModelTurn,
  signal: AbortSignal,
  log: (message: string, meta?: Record<string, unknown>) => void,
): Promise<Reply> {
  const messages = promptFor(job, await deps.hub.exchange.history(job.conversation), turn.content);
  // With tools each step is one whole model call (the platform shows which tool is in use); the
  // reply is put in place once complete.
  const withTools = offersTools(deps, job)
    ? await answerWithTools(deps, job, messages, signal, (tool) => live.thinking(tool))
    : null;
  if (withTools) return recordToolAnswer(deps, job, withTools, turn.memo);
  // Opened at once when no budget applies: awaited only when it is a promise (a reservation).
  const opened = deps.meter.open(hookCall(job, messages));
  const metered = opened instanceof Promise ? await opened : opened;
  try {
    return await streamWith(
      deps,
      job,
      live,
      messages,
      turn.memo,
      { signal, requestId: job.jobId, onUsage: metered.onUsage },
      log,
    );
  } finally {
    metered.close();
  }
}

async function streamWith(
  deps: WorkerDeps,
  job: MessageJob,
  live: LiveReply,
  messages: ChatMessage[],
  memo: string,
  call: CallContext,
  log: (message: string, meta?: Record<string, unknown>) => void,
): Promise<Reply> {
  const stream = await deps.gateway.stream({ model: job.hook.config.model, messages, stream: true }, call);
  const updates = new PacedUpdates(
    (text) => live.update(text),
    job.hook.streamIntervalMs,
    (err) => log('live update failed; the next one tries again', { error: (err as Error).message }),
  );
  let text = '';
  try {
    for await (const batch of stream.batches) {
      for (const chunk of batch) {
        const delta = chunk.choices[0]?.delta.content;
        if (typeof delta !== 'string' || delta === '') continue;
        text += delta;
        updates.push(text);
      }
    }
  } finally {
    const inFlight = updates.stop();
    if (inFlight) await inFlight;
  }
  const reply = { text, model: stream.model, created: unixSeconds() };
  return deps.hub.exchange.record(job.jobId, job.conversation, memo, reply);
}
