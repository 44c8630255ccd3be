import type { ExchangeState, Reply } from '@switchboard/hub';
import type { ChatMessage } from '@switchboard/protocol';
import type { WorkerDeps } from './deps.js';
import type { MessageJob } from './message-job.js';

/**
 * The reply to a message, generated at most once per job: a reply recorded by an earlier run is
 * reused, and a new one is recorded — with the exchange appended to memory in the same step —
 * before any of it is delivered.
 */
export async function answerOnce(deps: WorkerDeps, job: MessageJob, earlier: ExchangeState, signal: AbortSignal): Promise<Reply> {
  if (earlier.reply) return earlier.reply;
  const { hub, gateway } = deps;
  const { text } = job.queued.message;
  const legacy = job.legacy;
  if (legacy?.reply) {
    return hub.exchange.record(job.jobId, job.conversation, text, legacy.reply, { remember: !legacy.historySaved });
  }
  const history = await hub.exchange.history(job.conversation);
  const { model, system } = job.hook.config;
  const messages: ChatMessage[] = [
    ...(system ? [{ role: 'system' as const, content: system }] : []),
    ...history,
    { role: 'user', content: text },
  ];
  const completion = await gateway.complete({ model, messages }, { signal, requestId: job.jobId });
  const reply = { text: completion.choices[0]?.message.content ?? '', model: completion.model, created: completion.created };
  return hub.exchange.record(job.jobId, job.conversation, text, reply);
}
