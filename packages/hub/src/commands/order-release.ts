/**
 * A message is done for good: it leaves its line, recording its final fields on its job hash in
 * the same step, and names the message that is now first (the caller wakes it).
 *
 * KEYS[1] the conversation's line
 * KEYS[2] the job's hash in BullMQ
 * ARGV[1] job id
 * ARGV[2] seconds to keep a line that still holds messages
 * ARGV[3..] field, value pairs to set on the job hash (at least one)
 *
 * Returns the id now first in line, or false when the line is empty.
 */
export const orderRelease = {
  name: 'sbOrderRelease',
  numberOfKeys: 2,
  lua: `
local line = KEYS[1]
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('LREM', line, 1, ARGV[1])
local first = redis.call('LINDEX', line, 0)
if first then redis.call('EXPIRE', line, ARGV[2]) end
return first
`,
} as const;
