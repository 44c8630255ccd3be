import { JOB_FIELDS } from '../keys.js';

/**
 * Records a message's reply and, in the same step, appends the exchange to the conversation's
 * memory — only if no reply was recorded for this job before. Whatever crashes and however often
 * the job runs, the memory holds its exchange at most once, and every attempt delivers the one
 * reply that was recorded first.
 *
 * KEYS[1] the job's hash in BullMQ
 * KEYS[2] the conversation's memory (list)
 * ARGV[1] the reply, JSON
 * ARGV[2] the user's message, JSON
 * ARGV[3] the assistant's message, JSON; '' for none (a message kept as context, unanswered)
 * ARGV[4] how many messages memory keeps: the list is trimmed back to that many once it holds
 *         half as many more (at least 2 more), so most exchanges skip the LTRIM; readers take the
 *         last ARGV[4] (Exchange.history)
 * ARGV[5] memory lifetime, seconds (refreshed)
 * ARGV[6] '1' to append to memory ('0': a job of an older release already did)
 *
 * Returns 1 when this reply is the one recorded (the caller has it: not sent back), else the
 * reply recorded first, JSON.
 */
export const exchangeRecord = {
  name: 'sbExchangeRecord',
  numberOfKeys: 2,
  lua: `
if redis.call('HSETNX', KEYS[1], '${JOB_FIELDS.reply}', ARGV[1]) == 0 then
  return redis.call('HGET', KEYS[1], '${JOB_FIELDS.reply}')
end
if ARGV[6] == '1' then
  local length
  if ARGV[3] == '' then
    length = redis.call('RPUSH', KEYS[2], ARGV[2])
  else
    length = redis.call('RPUSH', KEYS[2], ARGV[2], ARGV[3])
  end
  local keep = tonumber(ARGV[4])
  if length > keep + math.max(2, math.ceil(keep / 2)) then redis.call('LTRIM', KEYS[2], -keep, -1) end
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
return 1
`,
} as const;
