export * from './enqueue.js';
export * from './inbound-job.js';
export * from './queues.js';
