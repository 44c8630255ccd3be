import type { Tracing } from './tracing.js';

/**
 * The gateway's observer side for traces (providers `GatewayObserver.modelCall`, matched by
 * shape): each call to a deployment is a client span under the active one (the /v1 request's,
 * or the hook message's in the worker), ended when the call settles.
 */
export function gatewayTracing(tracing: Tracing) {
  return {
    modelCall(deployment: { id: string; provider: string }) {
      return tracing.start('model call', {
        kind: 'client',
        attributes: { 'gen_ai.request.model': deployment.id, 'switchboard.provider': deployment.provider },
      });
    },
  };
}
