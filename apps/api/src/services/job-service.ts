import { notFound } from '@switchboard/protocol';
import { inboundJobSchema } from '@switchboard/queue';
import type { AppDeps } from '../deps.js';

export interface JobView {
  id: string;
  status: 'queued' | 'active' | 'completed' | 'failed';
  reply?: string;
  error?: string;
  attempts: number;
}

/** What a caller may learn of its message: queued, being answered, answered and delivered, or failed. */
export async function readJob(deps: AppDeps, hook: string, id: string): Promise<JobView> {
  const job = await (await deps.readyQueue()).getJob(id);
  const data = job ? inboundJobSchema.safeParse(job.data) : null;
  if (!job || !data?.success || data.data.hook !== hook) throw notFound(`There is no job '${id}' on this hook.`, 'job_not_found');
  const state = await job.getState();
  const status = state === 'completed' || state === 'failed' || state === 'active' ? state : 'queued';
  const reply = data.data.reply?.text;
  return {
    id,
    status,
    ...(reply !== undefined ? { reply } : {}),
    ...(status === 'failed' && job.failedReason ? { error: job.failedReason } : {}),
    attempts: job.attemptsMade,
  };
}
