/**
 * What the apps trace with. Everything OpenTelemetry is imported dynamically by `startTracing`,
 * so a process without `OTEL_EXPORTER_OTLP_ENDPOINT` never loads the SDK: the apps hold no
 * `Tracing` then, and their `deps.tracing?.…` calls cost nothing.
 */

export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Record<string, string | number | boolean>;
  /** A W3C `traceparent` to continue (a queued job's): the span's parent instead of the active span. */
  parent?: string | undefined;
}

/** The span a traced function runs in. */
export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
  updateName(name: string): void;
}

export interface Tracing {
  /** Runs `fn` in a new span, the active one while it runs; ends it when `fn` settles (a throw marks it failed). */
  span<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** Starts a span under the active one, for a call that settles elsewhere: call the result to end it. */
  start(name: string, options: SpanOptions): (error?: unknown) => void;
  /** The active span as a W3C `traceparent`, to carry across the queue; undefined outside any span. */
  traceparent(): string | undefined;
  /** Sends the spans not sent yet. */
  flush(): Promise<void>;
  /** Flushes and stops; bounded (about 2 s) whether or not the collector answers. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** The OTLP/HTTP collector's base URL: spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  /** How long the exporter waits for the collector per batch. @defaultValue 2000 */
  exportTimeoutMs?: number;
}

/** Loads the OpenTelemetry SDK and starts exporting spans in batches over OTLP/HTTP (JSON). */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, core, hooks] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
    ]);
  // One context manager per process (AsyncLocalStorage), whichever Tracing comes first: the tests
  // run an API and a worker in one process, each with its own provider and service name.
  const manager = new hooks.AsyncLocalStorageContextManager();
  if (!api.context.setGlobalContextManager(manager.enable())) manager.disable(); // another Tracing's is global
  const timeoutMillis = options.exportTimeoutMs ?? 2_000;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces`, timeoutMillis }), {
        scheduledDelayMillis: 1_000,
        exportTimeoutMillis: timeoutMillis,
      }),
    ],
  });
  const tracer = provider.getTracer('switchboard');
  const propagator = new core.W3CTraceContextPropagator();
  const kinds = {
    server: api.SpanKind.SERVER,
    client: api.SpanKind.CLIENT,
    producer: api.SpanKind.PRODUCER,
    consumer: api.SpanKind.CONSUMER,
    internal: api.SpanKind.INTERNAL,
  };

  const begin = (name: string, options: SpanOptions) => {
    const parent = options.parent
      ? propagator.extract(api.ROOT_CONTEXT, { traceparent: options.parent }, api.defaultTextMapGetter)
      : api.context.active();
    const span = tracer.startSpan(
      name,
      { kind: kinds[options.kind ?? 'internal'], attributes: options.attributes ?? {} },
      parent,
    );
    return { span, context: api.trace.setSpan(parent, span) };
  };
  // The error's kind only: messages can hold what users wrote.
  const failed = (span: ReturnType<typeof begin>['span'], error: unknown) => {
    const type = error instanceof Error ? ((error as { code?: unknown }).code ?? error.name) : 'error';
    span.setAttribute('error.type', String(type));
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  };

  return {
    span(name, options, fn) {
      const { span, context } = begin(name, options);
      return api.context.with(context, async () => {
        try {
          return await fn(span);
        } catch (err) {
          failed(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
    start(name, options) {
      const { span } = begin(name, options);
      return (error) => {
        if (error !== undefined) failed(span, error);
        span.end();
      };
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagator.inject(api.context.active(), carrier, api.defaultTextMapSetter);
      return carrier.traceparent;
    },
    flush: () => provider.forceFlush(),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMillis + 500);
      });
      await Promise.race([provider.shutdown().catch(() => {}), late]);
      clearTimeout(timer);
    },
  };
}
