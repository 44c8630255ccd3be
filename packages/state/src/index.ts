export * from './active-sessions.js';
export * from './channel-stats.js';
export * from './cooldown-store.js';
export * from './keys.js';
export * from './rate-limiter.js';
export * from './redis.js';
export * from './response-cache-store.js';
export * from './workers.js';
