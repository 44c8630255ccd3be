import { createHash, randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InboundJobData, InboundJobMessage } from './inbound-job.js';

/**
 * Jobs retry with the worker's own back-off strategy (apps/worker/src/backoff.ts): exponential,
 * or the platform's Retry-After when that is longer.
 */
export const RETRY_BACKOFF = 'switchboard';

export interface EnqueueOptions {
  attempts: number;
  backoffMs: number;
  /** How long a dedupe key (and a finished job) is remembered. @defaultValue 86400 */
  retentionSeconds?: number;
}

export interface EnqueueKeys {
  dedupe: (jobId: string) => string;
  conversationTail: (conversation: string) => string;
  successor: (jobId: string) => string;
}

/**
 * One atomic step: claim the dedupe key (when the platform gave one) and link the message
 * behind the conversation's previous one (both ways: the previous one's successor is recorded,
 * so finishing it can wake this one). Returns [duplicate, previous job id].
 */
const CLAIM_AND_LINK = `
if ARGV[2] == '1' then
  if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[3]) then return {1, ''} end
end
local previous = redis.call('GET', KEYS[2]) or ''
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
if previous ~= '' and previous ~= ARGV[1] then
  -- built here because it depends on previous: fine on one Redis, not on Redis Cluster
  redis.call('SET', ARGV[4] .. previous, ARGV[1], 'EX', ARGV[3])
end
return {0, previous}
`;

/**
 * Queues an inbound message durably; resolves only once BullMQ has written it to Redis.
 * A message whose dedupe key was seen before resolves to the first one's job id and queues
 * nothing, unless that job never made it into Redis (a crash between claim and add).
 */
export async function enqueueInbound(
  queue: Queue,
  redis: Redis,
  keys: EnqueueKeys,
  hook: string,
  message: InboundJobMessage,
  options: EnqueueOptions,
): Promise<{ jobId: string; duplicate: boolean }> {
  const retention = options.retentionSeconds ?? 86_400;
  const conversation = `${hook}:${message.conversation}`;
  const jobId = message.dedupeKey
    ? `${hook}-${createHash('sha256').update(message.dedupeKey).digest('hex').slice(0, 32)}`
    : randomUUID();

  const [duplicate, previous] = (await redis.eval(
    CLAIM_AND_LINK,
    2,
    keys.dedupe(jobId),
    keys.conversationTail(conversation),
    jobId,
    message.dedupeKey ? '1' : '0',
    String(retention),
    keys.successor(''),
  )) as [number, string];
  if (duplicate === 1 && (await queue.getJob(jobId))) return { jobId, duplicate: true };

  const data: InboundJobData = { hook, message, receivedAt: Date.now(), after: previous && previous !== jobId ? previous : null };
  await queue.add('message', data, {
    jobId,
    attempts: options.attempts,
    backoff: { type: RETRY_BACKOFF, delay: options.backoffMs },
    removeOnComplete: { age: retention },
    removeOnFail: { age: retention * 7 },
  });
  return { jobId, duplicate: false };
}
