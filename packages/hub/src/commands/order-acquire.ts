/**
 * May a message that was queued behind others run now?
 *
 * KEYS[1] the conversation's line
 * ARGV[1] job id
 * ARGV[2] the queue's job-key prefix (`<bull prefix>:<queue>:`), to look at the job first in line
 * ARGV[3] '1' when this job has waited longer than a push and an add can be apart
 *
 * Returns {1, ''} to run (first in line, or no longer in line at all: it left it for good, or the
 * line was lost) or {0, first} to wait for `first`. A first entry is dropped instead of waited for
 * when its job has finished (its release was lost), or when it does not exist in the queue while
 * this one has waited that long (an orphan: its API died between lining it up and adding it).
 */
export const orderAcquire = {
  name: 'sbOrderAcquire',
  numberOfKeys: 1,
  lua: `
local line, jobId = KEYS[1], ARGV[1]
if not redis.call('LPOS', line, jobId) then return {1, ''} end
local first = redis.call('LINDEX', line, 0)
while first ~= jobId do
  local key = ARGV[2] .. first
  if redis.call('EXISTS', key) == 1 then
    if redis.call('HEXISTS', key, 'finishedOn') == 0 then return {0, first} end
  elseif ARGV[3] ~= '1' then
    return {0, first}
  end
  redis.call('LPOP', line)
  first = redis.call('LINDEX', line, 0)
end
return {1, ''}
`,
} as const;
