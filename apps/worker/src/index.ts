export { startHeartbeat } from './heartbeat.js';
