export * from './active-sessions.js';
export * from './keys.js';
export * from './redis.js';
export * from './workers.js';
