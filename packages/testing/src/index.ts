export * from './http-server.js';
export * from './openai-upstream.js';
export * from './redis-prefix.js';
