export * from './accept.js';
export { type HubCommands, type HubRedis, withHubCommands } from './commands/index.js';
export * from './exchange.js';
export * from './hub.js';
export * from './job-view.js';
export * from './keys.js';
export * from './ordering.js';
export * from './queues.js';
export * from './retry-policy.js';
