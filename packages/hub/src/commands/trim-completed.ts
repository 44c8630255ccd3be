/**
 * Removes a queue's oldest completed jobs beyond its count bound and those finished before the age
 * bound, at most a given number per call (the retention of job-retention.ts, run every so many
 * completions instead of BullMQ's removal at each one). The keys deleted per job are the ones
 * BullMQ's own removal deletes (its `removeJobKeys`): the job hash and the job's logs, and the
 * flow keys BullMQ may have made (none for our jobs). Feeds and watch keys expire on their own.
 *
 * KEYS[1] the queue's completed set in BullMQ (scored by finish time, ms)
 * ARGV[1] the queue's job-key prefix (`<bull prefix>:<queue>:`)
 * ARGV[2] completed jobs to keep
 * ARGV[3] epoch ms: jobs finished before this go whatever their count
 * ARGV[4] the most jobs removed by one call
 *
 * Returns how many jobs it removed (ARGV[4]: there may be more).
 */
export const trimCompleted = {
  name: 'sbTrimCompleted',
  numberOfKeys: 1,
  lua: `
local set, prefix = KEYS[1], ARGV[1]
local n = redis.call('ZCARD', set) - tonumber(ARGV[2])
local old = redis.call('ZCOUNT', set, '-inf', '(' .. ARGV[3])
if old > n then n = old end
n = math.min(n, tonumber(ARGV[4]))
if n <= 0 then return 0 end
local ids = redis.call('ZRANGE', set, 0, n - 1)
local keys = {}
for _, id in ipairs(ids) do
  local key = prefix .. id
  for _, suffix in ipairs({'', ':logs', ':dependencies', ':processed', ':failed', ':unsuccessful'}) do
    keys[#keys + 1] = key .. suffix
  end
  if #keys >= 600 then
    redis.call('DEL', unpack(keys))
    keys = {}
  end
end
if #keys > 0 then redis.call('DEL', unpack(keys)) end
redis.call('ZREMRANGEBYRANK', set, 0, n - 1)
return n
`,
} as const;
