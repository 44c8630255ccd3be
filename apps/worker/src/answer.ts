import type { ExchangeState, Reply } from '@switchboard/hub';
import { type ChatMessage, unixSeconds } from '@switchboard/protocol';
import type { WorkerDeps } from './deps.js';
import { hookCall } from './hook-call.js';
import { type RefusedTurn, refusalText } from './media/refusal-text.js';
import { cannotSee, type ModelTurn, textTurn, userTurn } from './media/user-turn.js';
import type { MessageJob } from './message-job.js';
import { answerWithTools, offersTools, recordToolAnswer } from './tool-loop.js';

/**
 * The reply to a message, generated at most once per job: a reply recorded by an earlier run is
 * reused, and a new one is recorded — with the exchange appended to memory in the same step —
 * before any of it is delivered.
 */
export async function answerOnce(deps: WorkerDeps, job: MessageJob, earlier: ExchangeState, signal: AbortSignal): Promise<Reply> {
  return (
    recordedReply(deps, job, earlier) ??
    fixedReply(deps, job) ??
    answerTurn(deps, job, signal, (turn) => modelReply(deps, job, turn, signal))
  );
}

/**
 * The user's turn answered by `answer` (the whole reply, or the live one), or refused: a file the
 * bot cannot use, or images the model rejected (`cannotSee`), is a polite refusal recorded instead.
 */
export function answerTurn(
  deps: WorkerDeps,
  job: MessageJob,
  signal: AbortSignal,
  answer: (turn: ModelTurn) => Promise<Reply>,
): Promise<Reply> {
  // A message without files is its text: answered as it is (no images the model could refuse),
  // its promise handed on (not async: an async function returning a promise costs ticks of its own).
  const text = textTurn(job);
  return text ? answer(text) : answerFiles(deps, job, signal, answer);
}

async function answerFiles(
  deps: WorkerDeps,
  job: MessageJob,
  signal: AbortSignal,
  answer: (turn: ModelTurn) => Promise<Reply>,
): Promise<Reply> {
  const turn = await userTurn(deps, job, signal);
  if ('refused' in turn) return refusedReply(deps, job, turn);
  return answer(turn).catch((err) => refusedReply(deps, job, cannotSee(deps, job, turn.content, err)));
}

/** The model's reply to the turn (through the tool loop when the hook has tools), recorded with the exchange. */
async function modelReply(deps: WorkerDeps, job: MessageJob, turn: ModelTurn, signal: AbortSignal) {
  const messages = promptFor(job, await deps.hub.exchange.history(job.conversation), turn.content);
  const withTools = offersTools(deps, job) ? await answerWithTools(deps, job, messages, signal) : null;
  if (withTools) return recordToolAnswer(deps, job, withTools, turn.memo);
  const metered = await deps.meter.open(hookCall(job, messages));
  const call = { signal, requestId: job.jobId, onUsage: metered.onUsage };
  const completion = await deps.gateway.complete({ model: job.hook.config.model, messages }, call).finally(metered.close);
  const reply = { text: completion.choices[0]?.message.content ?? '', model: completion.model, created: completion.created };
  return deps.hub.exchange.record(job.jobId, job.conversation, turn.memo, reply);
}

/**
 * A file the bot cannot use: a short polite reply, recorded once like a fixed reply (a retry
 * delivers the same) and kept out of memory; the job completes.
 */
export async function refusedReply(deps: WorkerDeps, job: MessageJob, turn: RefusedTurn): Promise<Reply> {
  const refusal = { text: refusalText(turn), model: FIXED_REPLY_MODEL, created: unixSeconds() };
  return deps.hub.exchange.record(job.jobId, job.conversation, job.queued.message.text, refusal, { remember: false });
}

/**
 * The reply an earlier run recorded (a job of an older release kept it in its data), if any; null
 * at once when there is none (a first run: no promise, no turn of the event loop).
 */
export function recordedReply(deps: WorkerDeps, job: MessageJob, earlier: ExchangeState): Reply | Promise<Reply> | null {
  if (earlier.reply) return earlier.reply;
  const legacy = job.legacy;
  if (!legacy?.reply) return null;
  return deps.hub.exchange.record(job.jobId, job.conversation, job.queued.message.text, legacy.reply, {
    remember: !legacy.historySaved,
  });
}

/** The model name a fixed reply is recorded with (the job view and delivery events show it). */
export const FIXED_REPLY_MODEL = 'switchboard';

/**
 * A message's fixed reply (`say`, and `reset`'s confirmation), recorded like a model's — once,
 * so a retry delivers the same text — but kept out of memory; null (at once) for a message the
 * model answers.
 */
export function fixedReply(deps: WorkerDeps, job: MessageJob): Promise<Reply> | null {
  const { action, reply, text } = job.queued.message;
  if (action === 'chat' || reply === undefined) return null;
  const fixed = { text: reply, model: FIXED_REPLY_MODEL, created: unixSeconds() };
  return deps.hub.exchange.record(job.jobId, job.conversation, text, fixed, { remember: false });
}

/** What the model is sent: the hook's system prompt, the conversation's memory, the message (its images as parts). */
export function promptFor(job: MessageJob, history: readonly ChatMessage[], content: ChatMessage['content']): ChatMessage[] {
  const { system } = job.hook.config;
  return [...(system ? [{ role: 'system' as const, content: system }] : []), ...history, { role: 'user', content }];
}
