/**
 * An operator's retry of a job that failed for good, in two steps around BullMQ's own retry.
 *
 * Mark (`sbOrderMarkRetry`, the API, before `job.retry()`): only a job in the failed set is
 * marked, so a mark never lands on a job that is running or completed.
 *
 * KEYS[1] the job's hash in BullMQ
 * KEYS[2] the queue's failed set in BullMQ
 * ARGV[1] job id
 * ARGV[2] the mark's field (JOB_FIELDS.rejoin)
 *
 * Returns 1 when marked, 0 when the job is not failed.
 */
export const orderMarkRetry = {
  name: 'sbOrderMarkRetry',
  numberOfKeys: 2,
  lua: `
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], '1')
return 1
`,
} as const;

/**
 * Rejoin (`sbOrderRejoin`, the worker, when the retried job runs): the job's earlier failure left
 * its conversation's line and set `done`; it takes the mark and `done` off and goes back to the
 * end of the line, behind the messages still waiting there, whose order is untouched. Its feed
 * (which ended with the earlier failure's `error`) is dropped, so a reader follows the new run.
 *
 * KEYS[1] the conversation's line
 * KEYS[2] the job's hash in BullMQ
 * KEYS[3] the job's feed (job-feed.ts)
 * ARGV[1] job id
 * ARGV[2] seconds to keep the line
 * ARGV[3] the mark's field (JOB_FIELDS.rejoin)
 * ARGV[4] the done field (JOB_FIELDS.done)
 *
 * Returns how many messages are ahead of it, or -1 when the job was not marked (nothing changes).
 */
export const orderRejoin = {
  name: 'sbOrderRejoin',
  numberOfKeys: 3,
  lua: `
local line, jobId = KEYS[1], ARGV[1]
if redis.call('HGET', KEYS[2], ARGV[3]) ~= '1' then return -1 end
redis.call('HDEL', KEYS[2], ARGV[3], ARGV[4])
redis.call('DEL', KEYS[3])
local place = redis.call('LPOS', line, jobId)
if place then return place end
local length = redis.call('RPUSH', line, jobId)
redis.call('EXPIRE', line, ARGV[2])
return length - 1
`,
} as const;
