export { Metrics, type MetricsRole } from './metrics.js';
export { deliveryMetrics, gatewayMetrics } from './observers.js';
export { registerSharedGauges, type SharedGaugesOptions, type SharedSnapshot } from './shared-gauges.js';
