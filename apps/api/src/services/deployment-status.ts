import type { DeploymentHealth, Gateway, ModelKind } from '@switchboard/providers';

export interface DeploymentStatus {
  /** `<provider>/<model>`. */
  id: string;
  kind: ModelKind;
  /** The routes that send traffic to it. */
  routes: string[];
  /** `cooling_down` while it is left alone after a failure; `unknown` while Redis is away. */
  state: 'ok' | 'cooling_down' | 'unknown';
  cooldown_until: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

/** Every deployment with its shared state; `health` null when it could not be read. */
export function deploymentStatus(
  gateway: Gateway,
  health: Map<string, DeploymentHealth> | null,
  now = Date.now(),
): DeploymentStatus[] {
  return gateway.registry.models.map((model) => {
    const known = health?.get(model.id);
    const cooling = (known?.coolingForMs ?? 0) > 0;
    return {
      id: model.id,
      kind: model.kind,
      routes: gateway.routes.routesOf(model.id),
      state: health === null ? 'unknown' : cooling ? 'cooling_down' : 'ok',
      cooldown_until: cooling ? new Date(now + known!.coolingForMs).toISOString() : null,
      last_error: known?.lastError ?? null,
      last_error_at: known?.lastErrorAt != null ? new Date(known.lastErrorAt).toISOString() : null,
    };
  });
}
