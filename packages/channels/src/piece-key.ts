import { createHash } from 'node:crypto';

/**
 * The idempotency key of piece `index` of a job's reply: the same on every run of the job (a retry
 * after a crash sends the piece with the key the first try had), different for every piece, hook
 * and job. 25 characters of base64url (150 bits of SHA-256): within Discord's 25-character
 * `nonce`, and a value Mattermost's `pending_post_id` takes as it is. `scope` adds what the key
 * must also differ by (a retry of a live piece posted anew after its message was deleted).
 */
export function pieceKey(hook: string, jobId: string, index: number, scope = ''): string {
  return createHash('sha256').update(`switchboard\n${hook}\n${jobId}\n${index}\n${scope}`).digest('base64url').slice(0, 25);
}
