import type { RoutesConfig } from '@switchboard/config';
import { AppError, ConfigError, invalidRequest } from '@switchboard/protocol';
import { MODEL_KINDS, type ModelKind, type ModelRegistry, type ResolvedModel } from '../registry.js';

export interface RouteMember {
  model: ResolvedModel;
  weight: number;
}

/** What a request's `model` names: a route over several deployments, or one deployment. */
export interface Target {
  /** The route's name, or the deployment's `<provider>/<model>`. */
  name: string;
  kind: ModelKind;
  members: RouteMember[];
}

/**
 * What a request's `model` resolved to for one kind of call: its target (`name`: the route's, or
 * the deployment id) and the targets tried after it (its fallbacks), in order. Resolved once per
 * request (`Gateway.plan`) and handed to whatever needs it: the price, the cache key, the call.
 */
export interface RoutePlan {
  /** `targets[0].name`: what the request's model stands for. */
  readonly name: string;
  readonly kind: ModelKind;
  readonly targets: readonly Target[];
}

/**
 * Names → targets: `default`, routes (`routes.<name>`), model ids and bare model names, and
 * each target's fallbacks. Everything is checked at start-up, so a typo in a route or fallback
 * stops the process with the key that is wrong instead of failing requests later.
 */
export class RouteTable {
  private readonly routes = new Map<string, Target>();
  private readonly chains = new Map<string, Target[]>();
  /**
   * `<kind>:<name>` → its plan, for names that resolved: a finite set (ids, bare names, routes,
   * `default`), so the map stays small whatever clients send; names that fail are not kept.
   */
  private readonly plans = new Map<string, RoutePlan>();

  constructor(
    private readonly registry: ModelRegistry,
    routes: RoutesConfig = {},
    fallbacks: Record<string, string[]> = {},
  ) {
    for (const [name, deployments] of Object.entries(routes)) this.routes.set(name, this.route(name, deployments));
    for (const [name, chain] of Object.entries(fallbacks)) {
      const first = this.configured(`fallbacks.${name}`, () => anyKind((kind) => this.target(name, kind)));
      const rest = chain.map((next, i) => this.configured(`fallbacks.${name}[${i}]`, () => this.target(next, first.kind)));
      this.chains.set(first.name, [first, ...rest]);
    }
    const { defaultModel } = registry;
    if (!this.routes.has(defaultModel) && !registry.has(defaultModel)) {
      const served = [...registry.models.filter((m) => m.kind === 'chat').map((m) => m.id), ...this.routeNames];
      throw new ConfigError(
        `defaultModel: '${defaultModel}' is not served by any configured provider (served: ${served.join(', ')})`,
      );
    }
    this.configured('defaultModel', () => this.target('default', 'chat'));
  }

  /** The route names, for listing. */
  get routeNames(): string[] {
    return [...this.routes.keys()];
  }

  /** The routes a deployment belongs to. */
  routesOf(id: string): string[] {
    return [...this.routes.values()].filter((r) => r.members.some((m) => m.model.id === id)).map((r) => r.name);
  }

  /** The target `model` names: a route first, else a model (404 `model_not_found` when neither). */
  target(model: string, kind: ModelKind): Target {
    const name = model === 'default' && kind === 'chat' ? this.registry.defaultModel : model;
    const route = this.routes.get(name);
    if (route) {
      if (route.kind !== kind) {
        throw invalidRequest(
          `The route '${name}' serves ${route.kind} models, not this endpoint.`,
          'model',
          'model_not_supported',
        );
      }
      return route;
    }
    const model_ = this.registry.resolve(name, kind);
    return { name: model_.id, kind, members: [{ model: model_, weight: 1 }] };
  }

  /** The target and its fallbacks, in the order they are tried (404/400 as `target`). */
  plan(model: string, kind: ModelKind): RoutePlan {
    const key = `${kind}:${model}`;
    let plan = this.plans.get(key);
    if (!plan) {
      const first = this.target(model, kind);
      plan = { name: first.name, kind, targets: this.chains.get(first.name) ?? [first] };
      this.plans.set(key, plan);
    }
    return plan;
  }

  private route(name: string, deployments: RoutesConfig[string]): Target {
    if (name === 'default') throw new ConfigError("routes.default: 'default' means the defaultModel; name the route otherwise");
    if (this.registry.has(name)) throw new ConfigError(`routes.${name}: a route cannot take the name of a served model`);
    const members: RouteMember[] = [];
    for (const [i, d] of deployments.entries()) {
      const key = `routes.${name}[${i}].model`;
      if (this.routes.has(d.model)) throw new ConfigError(`${key}: '${d.model}' is a route; a route lists models only`);
      const model = this.configured(key, () => anyKind((kind) => this.registry.resolve(d.model, kind)));
      if (members.some((m) => m.model.id === model.id)) throw new ConfigError(`${key}: '${model.id}' is listed twice`);
      members.push({ model, weight: d.weight });
    }
    const kind = members[0]!.model.kind;
    if (members.some((m) => m.model.kind !== kind)) {
      throw new ConfigError(`routes.${name}: mixes kinds of model (chat, embedding, audio)`);
    }
    return { name, kind, members };
  }

  /** `resolve()`, with a failure as a ConfigError naming `key`. */
  private configured<T>(key: string, resolve: () => T): T {
    try {
      return resolve();
    } catch (err) {
      if (err instanceof AppError || err instanceof ConfigError) throw new ConfigError(`${key}: ${err.message}`);
      throw err;
    }
  }
}

/** `resolve` for each kind in turn (chat, embedding, audio), until one is not `model_not_supported`. */
export function anyKind<T>(resolve: (kind: ModelKind) => T): T {
  for (const [i, kind] of MODEL_KINDS.entries()) {
    try {
      return resolve(kind);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'model_not_supported' || i === MODEL_KINDS.length - 1) throw err;
    }
  }
  throw new Error('unreachable: MODEL_KINDS is not empty');
}
