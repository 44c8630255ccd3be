export * from './body-queue.js';
export * from './deadline.js';
export * from './exchange.js';
export * from './pool.js';
export * from './read-body.js';
export * from './sse-parser.js';
export * from './transport-failure.js';
export * from './url.js';
