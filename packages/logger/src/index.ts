export * from './logger.js';
export * from './redact.js';
