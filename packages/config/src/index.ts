export * from './interpolate.js';
export * from './schema.js';
export * from './settings.js';
