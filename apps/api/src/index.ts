export { createApp } from './app.js';
export { type AppDeps, closeDeps, createDeps } from './deps.js';
export { type RunningServer, startServer } from './server.js';
