export { closeWorkerDeps, createWorkerDeps, type WorkerDeps } from './deps.js';
export { startHeartbeat } from './heartbeat.js';
export { type MetricsServer, startMetricsServer } from './metrics-server.js';
export { type RunningWorker, startWorker } from './worker.js';
