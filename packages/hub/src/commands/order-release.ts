/**
 * A message is done for good: it leaves its line, recording its final fields on its job hash in
 * the same step, and names the message that is now first if it is parked (the caller wakes it).
 * Running it again is harmless, and wakes the first message again: a job that runs again after
 * its release (its worker died before BullMQ heard) repeats a wake-up that may have been lost.
 *
 * KEYS[1] the conversation's line
 * KEYS[2] the job's hash in BullMQ
 * KEYS[3] the queue's delayed set in BullMQ, where parked messages sleep
 * KEYS[4] the message's dedupe key, if it has one: marked `done` (its time to live kept), so a
 *         platform's late repeat is a duplicate even once the finished job was removed (the
 *         queue keeps a bounded number of finished jobs)
 * ARGV[1] job id
 * ARGV[2] seconds to keep a line that still holds messages
 * ARGV[3] '1' when the message has a dedupe key ('0': KEYS[4] is left alone, one command less)
 * ARGV[4..] field, value pairs to set on the job hash (at least one)
 *
 * Returns the id now first in line when it is parked, else false.
 *
 * The message leaving is nearly always first in line, and most often alone in it: one LPOP of
 * two entries takes it out and shows what follows (the one behind is pushed back), one command
 * where LREM and LINDEX were two. A message that is not first (or a Redis before 6.2, whose LPOP
 * takes no count) has what was popped put back and leaves by LREM as before. A line popped empty
 * and pushed again has lost its time to live: every path that leaves entries sets it again.
 */
export const orderRelease = {
  name: 'sbOrderRelease',
  numberOfKeys: 4,
  lua: `
local line = KEYS[1]
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
if ARGV[3] == '1' then redis.call('SET', KEYS[4], 'done', 'XX', 'KEEPTTL') end
local first
local head = redis.pcall('LPOP', line, 2)
if not head then return false end
if head[1] == ARGV[1] then
  first = head[2]
  if not first then return false end
  redis.call('LPUSH', line, first)
else
  if head.err == nil then
    for i = #head, 1, -1 do redis.call('LPUSH', line, head[i]) end
  end
  redis.call('LREM', line, 1, ARGV[1])
  first = redis.call('LINDEX', line, 0)
  if not first then return false end
end
redis.call('EXPIRE', line, ARGV[2])
if redis.call('ZSCORE', KEYS[3], first) then return first end
return false
`,
} as const;
