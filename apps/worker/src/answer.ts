import type { HookAdapter } from '@switchboard/channels';
import type { ChatMessage } from '@switchboard/protocol';
import type { InboundJobData } from '@switchboard/queue';
import type { Job } from 'bullmq';
import type { WorkerDeps } from './deps.js';

export type Reply = NonNullable<InboundJobData['reply']>;

/**
 * The reply to a message, generated at most once per job: it is written into the job before
 * delivery starts, and the exchange is added to the conversation's memory exactly once.
 */
export async function answerOnce(
  deps: WorkerDeps,
  job: Job<InboundJobData>,
  hook: HookAdapter,
  conversation: string,
): Promise<Reply> {
  let data = job.data;
  if (!data.reply) {
    const history = await deps.memory.load(conversation);
    const messages: ChatMessage[] = [
      ...(hook.config.system ? [{ role: 'system' as const, content: hook.config.system }] : []),
      ...history,
      { role: 'user', content: data.message.text },
    ];
    const completion = await deps.gateway.complete(
      { model: hook.config.model, messages },
      { signal: new AbortController().signal, requestId: job.id ?? 'job' },
    );
    const text = completion.choices[0]?.message.content ?? '';
    data = { ...data, reply: { text, model: completion.model, created: completion.created } };
    await job.updateData(data);
  }
  if (!data.historySaved) {
    await deps.memory.append(conversation, [
      { role: 'user', content: data.message.text },
      { role: 'assistant', content: data.reply!.text },
    ]);
    data = { ...data, historySaved: true };
    await job.updateData(data);
  }
  return data.reply!;
}
