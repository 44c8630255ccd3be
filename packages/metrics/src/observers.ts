import type { Metrics } from './metrics.js';

/**
 * The gateway's observer (providers `GatewayObserver`, matched by shape: providers does not
 * depend on this package): tokens, upstream errors, retries and fallbacks, counted in place.
 */
export function gatewayMetrics(metrics: Metrics) {
  const { tokens, upstreamErrors, upstreamRetries, fallbacks } = metrics;
  return {
    usage(deployment: { id: string; provider: string }, promptTokens: number, completionTokens: number) {
      tokens.inc({ model: deployment.id, provider: deployment.provider, direction: 'in' }, promptTokens);
      tokens.inc({ model: deployment.id, provider: deployment.provider, direction: 'out' }, completionTokens);
    },
    upstreamError(deployment: { id: string; provider: string }, code: string) {
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
