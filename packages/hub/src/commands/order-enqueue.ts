/**
 * Lines a message up in its conversation, atomically with the claim of its dedupe key. (A message
 * without one has nothing to claim: ordering.ts pushes it with a plain RPUSH and EXPIRE.)
 *
 * KEYS[1] the conversation's line (list)
 * KEYS[2] the dedupe key (unused when ARGV[2] is '0')
 * KEYS[3] the job's hash in BullMQ
 * ARGV[1] job id
 * ARGV[2] '1' when the message has a dedupe key
 * ARGV[3] seconds to keep the dedupe key and an idle line
 *
 * Returns {outcome, ahead}: outcome 0 = lined up, 1 = a duplicate of a queued job, or of one
 * released for good (its dedupe key says `done`, order-release.ts: queue nothing),
 * 2 = a duplicate whose job never reached the queue (its API died between claim and add: queue
 * it now, in the place it already has); ahead = how many unfinished messages are before it.
 */
export const orderEnqueue = {
  name: 'sbOrderEnqueue',
  numberOfKeys: 3,
  lua: `
local line, jobId = KEYS[1], ARGV[1]
if ARGV[2] == '1' and not redis.call('SET', KEYS[2], jobId, 'NX', 'EX', ARGV[3]) then
  if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('GET', KEYS[2]) == 'done' then return {1, 0} end
  local place = redis.call('LPOS', line, jobId)
  if place then return {2, place} end
  local length = redis.call('RPUSH', line, jobId)
  redis.call('EXPIRE', line, ARGV[3])
  return {2, length - 1}
end
local length = redis.call('RPUSH', line, jobId)
if length == 1 then redis.call('EXPIRE', line, ARGV[3]) end
return {0, length - 1}
`,
} as const;
