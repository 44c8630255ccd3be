export * from './chat-request.js';
export * from './chat-response.js';
export * from './error-body.js';
export * from './errors.js';
export * from './ids.js';
export * from './json-depth.js';
export * from './models.js';
