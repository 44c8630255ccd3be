export { closeWorkerDeps, createWorkerDeps, type WorkerDeps } from './deps.js';
export { startHeartbeat } from './heartbeat.js';
export { type RunningWorker, startWorker } from './worker.js';
