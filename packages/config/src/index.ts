// ConfigError lives in protocol, so a package that may not load the config (providers) can throw it.
export { ConfigError, EXIT_CONFIG } from '@switchboard/protocol';
export * from './cli.js';
export * from './config-file.js';
export * from './describe-settings.js';
export * from './env-variables.js';
export * from './interpolate.js';
export * from './redis-target.js';
export * from './schema.js';
export * from './settings.js';
