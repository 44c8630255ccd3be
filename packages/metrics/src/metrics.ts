import { collectDefaultMetrics, Registry } from 'prom-client';
import { PlainCounter } from './plain-counter.js';
import { PlainHistogram } from './plain-histogram.js';

/** Seconds, from a fast cached answer to a long streamed one. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** A job: its turn, the model call and every delivery. */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Which process the registry describes: each serves its own `/metrics`. */
export type MetricsRole = 'api' | 'worker';

/**
 * Every Switchboard metric, named after Prometheus's conventions (`switchboard_…_total` for
 * counters, base units `_seconds`), with labels whose values come from the configuration (route,
 * model, provider, hook, platform) or from a short fixed list (status, direction, outcome), never
 * from a client's free text. Instruments are plain numbers updated in place and handed to
 * prom-client's registry at scrape time (plain-counter.ts, plain-histogram.ts: prom-client's own
 * Counter and Histogram hash and check their labels on every update, which /v1 paid per request);
 * nothing here talks to Redis (the shared gauges read it at scrape time, see `registerSharedGauges`).
 */
export class Metrics {
  readonly registry = new Registry();

  /** /v1 requests answered (499 when the client hung up first). */
  readonly v1Requests = new PlainCounter({
    name: 'switchboard_v1_requests_total',
    help: 'Requests to /v1 by route, HTTP status, model (deployment or route name) and provider',
    labelNames: ['route', 'status', 'model', 'provider'] as const,
    registers: [this.registry],
  });
  readonly v1Duration = new PlainHistogram({
    name: 'switchboard_v1_request_duration_seconds',
    help: 'Time from a /v1 request arriving to its response ending (the whole stream for streams)',
    labelNames: ['route', 'model', 'provider'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly v1TimeToFirstToken = new PlainHistogram({
    name: 'switchboard_v1_time_to_first_token_seconds',
    help: 'Streamed /v1 requests: time from the request arriving to the first chunk sent',
    labelNames: ['route', 'model', 'provider'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /** Model calls of either process (the worker answers hook messages through the same gateway). */
  readonly tokens = new PlainCounter({
    name: 'switchboard_model_tokens_total',
    help: 'Tokens of model calls: direction "in" (prompt) or "out" (completion)',
    labelNames: ['model', 'provider', 'direction'] as const,
    registers: [this.registry],
  });
  readonly upstreamErrors = new PlainCounter({
    name: 'switchboard_upstream_errors_total',
    help: 'Model calls a deployment failed (after its own retries), by error code',
    labelNames: ['model', 'provider', 'code'] as const,
    registers: [this.registry],
  });
  readonly upstreamRetries = new PlainCounter({
    name: 'switchboard_upstream_retries_total',
    help: 'Upstream requests sent again after a connection error, 408, 429 or 5xx',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  readonly fallbacks = new PlainCounter({
    name: 'switchboard_fallbacks_total',
    help: 'Requests answered by a fallback after the model or route asked for failed',
    labelNames: ['model', 'fallback'] as const,
    registers: [this.registry],
  });

  readonly hookReceived = new PlainCounter({
    name: 'switchboard_hook_messages_received_total',
    help: 'Requests to /hooks/<hook> whose signature was valid (API)',
    labelNames: ['hook'] as const,
    registers: [this.registry],
  });
  readonly hookQueued = new PlainCounter({
    name: 'switchboard_hook_messages_queued_total',
    help: 'Hook messages queued for a worker (duplicates not counted) (API)',
    labelNames: ['hook'] as const,
    registers: [this.registry],
  });
  readonly hookCompleted = new PlainCounter({
    name: 'switchboard_hook_messages_completed_total',
    help: 'Hook messages answered and delivered (worker)',
    labelNames: ['hook'] as const,
    registers: [this.registry],
  });
  readonly hookFailed = new PlainCounter({
    name: 'switchboard_hook_messages_failed_total',
    help: 'Hook messages given up for good: no retry could cure them, or their attempts ran out (worker)',
    labelNames: ['hook'] as const,
    registers: [this.registry],
  });
  readonly deliveryAttempts = new PlainCounter({
    name: 'switchboard_delivery_attempts_total',
    help: 'Calls to a platform that post, edit or remove a reply (worker)',
    labelNames: ['platform'] as const,
    registers: [this.registry],
  });
  readonly deliveryRateLimited = new PlainCounter({
    name: 'switchboard_delivery_rate_limited_total',
    help: 'Platform calls answered 429 Too Many Requests (worker)',
    labelNames: ['platform'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new PlainHistogram({
    name: 'switchboard_job_duration_seconds',
    help: 'One run of a hook-message job, by outcome: completed, retry, failed or released (shutdown)',
    labelNames: ['hook', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  constructor(readonly role: MetricsRole) {
    // process_* and nodejs_*: computed at scrape time, except the event-loop delay histogram.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The text a scraper reads, and its content type. */
  async expose(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
