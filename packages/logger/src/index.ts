export * from './logger.js';
export * from './redact.js';
export * from './throttled-warning.js';
