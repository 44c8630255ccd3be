/**
 * Appends one event to a job's feed and keeps the feed alive for a while after its last event.
 *
 * KEYS[1] the job's feed (a Redis Stream)
 * ARGV[1] the event name (delta, reset, done, error)
 * ARGV[2] its data, JSON
 * ARGV[3] seconds the feed is kept after this event
 * ARGV[4] the most events kept (older ones are trimmed, approximately)
 *
 * Returns the event's stream id.
 */
export const feedAppend = {
  name: 'sbFeedAppend',
  numberOfKeys: 1,
  lua: `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[1], 'd', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return id
`,
} as const;
