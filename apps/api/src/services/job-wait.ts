import { setTimeout as sleep } from 'node:timers/promises';
import { type JobView, readJobView } from '@switchboard/hub';
import type { AppDeps } from '../deps.js';

/** How often a held request looks at its job. */
const POLL_MS = 200;

/**
 * Holds a caller for its job's reply (a mapped hook's `deliver.wait`): the job view once the job
 * is over, or null when `waitMs` ran out, the caller hung up or Redis did not answer — the caller
 * is then told the job id and reads the reply later.
 */
export async function waitForJob(
  deps: Pick<AppDeps, 'readyHub'>,
  hook: string,
  jobId: string,
  waitMs: number,
  signal: AbortSignal,
): Promise<JobView | null> {
  const hub = await deps.readyHub();
  const deadline = Date.now() + waitMs;
  while (!signal.aborted) {
    const view = await readJobView(hub, hook, jobId).catch(() => null);
    if (view && (view.status === 'completed' || view.status === 'failed')) return view;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(POLL_MS, left), undefined, { signal }).catch(() => {});
  }
  return null;
}
