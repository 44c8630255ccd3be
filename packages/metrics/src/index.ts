export { Metrics, type MetricsRole } from './metrics.js';
export { deliveryMetrics, gatewayMetrics } from './observers.js';
export { CounterSeries, PlainCounter } from './plain-counter.js';
export { HistogramSeries, PlainHistogram } from './plain-histogram.js';
export { registerSharedGauges, type SharedGaugesOptions, type SharedSnapshot } from './shared-gauges.js';
