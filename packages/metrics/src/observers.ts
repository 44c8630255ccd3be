import type { Metrics } from './metrics.js';
import type { CounterSeries } from './plain-counter.js';

type Deployment = { id: string; provider: string };

/**
 * The gateway's observer (providers `GatewayObserver`, matched by shape: providers does not
 * depend on this package): tokens, upstream errors, retries and fallbacks, counted in place.
 * Token counters are bound to their labels once per deployment.
 */
export function gatewayMetrics(metrics: Metrics) {
  const { tokens, upstreamErrors, upstreamRetries, fallbacks } = metrics;
  const tokenCounters = new Map<string, { in: CounterSeries; out: CounterSeries }>();
  return {
    usage(deployment: Deployment, promptTokens: number, completionTokens: number) {
      let counters = tokenCounters.get(deployment.id);
      if (!counters) {
        const labels = { model: deployment.id, provider: deployment.provider };
        counters = { in: tokens.labels({ ...labels, direction: 'in' }), out: tokens.labels({ ...labels, direction: 'out' }) };
        tokenCounters.set(deployment.id, counters);
      }
      counters.in.inc(promptTokens);
      counters.out.inc(completionTokens);
    },
    upstreamError(deployment: Deployment, code: string) {
      upstreamErrors.inc({ model: deployment.id, provider: deployment.provider, code });
    },
    retry(provider: string) {
      upstreamRetries.inc({ provider });
    },
    fallback(model: string, fallback: string) {
      fallbacks.inc({ model, fallback });
    },
  };
}

/** What the hooks' delivery clients report (channels `HookOptions.onPlatformCall`): one call to a platform and its status. */
export function deliveryMetrics(metrics: Metrics) {
  const { deliveryAttempts, deliveryRateLimited } = metrics;
  return (platform: string, status: number | null) => {
    deliveryAttempts.inc({ platform });
    if (status === 429) deliveryRateLimited.inc({ platform });
  };
}
