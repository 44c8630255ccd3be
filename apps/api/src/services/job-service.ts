import { type JobView, readJobView } from '@switchboard/hub';
import { notFound } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';

/** What a caller may learn of its message: queued, being answered, answered and delivered, or failed. */
export async function readJob(deps: Pick<AppDeps, 'readyHub'>, hook: string, id: string): Promise<JobView> {
  const view = await readJobView(await deps.readyHub(), hook, id);
  if (!view) throw notFound(`There is no job '${id}' on this hook.`, 'job_not_found');
  return view;
}
