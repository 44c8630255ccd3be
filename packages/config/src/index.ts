export * from './cli.js';
export * from './config-error.js';
export * from './config-file.js';
export * from './describe-settings.js';
export * from './env-variables.js';
export * from './interpolate.js';
export * from './schema.js';
export * from './settings.js';
