export { gatewayTracing } from './gateway-tracing.js';
export { type SpanHandle, type SpanKind, type SpanOptions, startTracing, type Tracing, type TracingOptions } from './tracing.js';
