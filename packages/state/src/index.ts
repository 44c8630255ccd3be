export * from './active-sessions.js';
export * from './channel-stats.js';
export * from './keys.js';
export * from './rate-limiter.js';
export * from './redis.js';
export * from './send-limiter.js';
export * from './workers.js';
