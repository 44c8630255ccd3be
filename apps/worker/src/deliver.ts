import type { HookAdapter } from '@switchboard/channels';
import type { InboundJobData } from '@switchboard/queue';
import type { Job } from 'bullmq';
import type { Reply } from './answer.js';

/**
 * Sends the reply's parts that were not sent yet; after each one the job records it, so a retry
 * resumes at the first undelivered part instead of repeating the ones before.
 */
export async function deliverRemaining(job: Job<InboundJobData>, hook: HookAdapter, reply: Reply): Promise<number> {
  const parts = hook.adapter.split(reply.text);
  const meta = { jobId: job.id ?? '', hook: job.data.hook, model: reply.model, created: reply.created };
  for (let index = job.data.delivered ?? 0; index < parts.length; index++) {
    await hook.adapter.deliverPart(job.data.message, parts[index]!, index, meta);
    await job.updateData({ ...job.data, delivered: index + 1 });
  }
  return parts.length;
}
