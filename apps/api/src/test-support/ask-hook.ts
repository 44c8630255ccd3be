import { expect } from 'vitest';
import { eventually } from './start-gateway.js';

/** A generic hook's job once it has ended, as `GET /hooks/:name/jobs/:id` shows it. */
export interface EndedJob {
  status: string;
  reply: string;
  attempts: number;
}

/**
 * Posts `body` to the generic hook `hook` (bearer `token`), expects it queued (202), and waits for
 * its job to complete or fail: the job view, read with the hook's token.
 */
export async function askHook(gatewayUrl: string, hook: string, token: string, body: unknown): Promise<EndedJob> {
  const res = await fetch(`${gatewayUrl}/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  return eventually(async () => {
    const view = await (await fetch(`${gatewayUrl}/hooks/${hook}/jobs/${id}`, { headers: { 'x-hook-token': token } })).json();
    if (view.status !== 'completed' && view.status !== 'failed') throw new Error(`still ${view.status}`);
    return view as EndedJob;
  }, 500);
}
