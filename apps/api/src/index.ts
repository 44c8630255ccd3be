export { createApp } from './app.js';
export { type AppDeps, createDeps } from './deps.js';
export { type RunningServer, startServer } from './server.js';
