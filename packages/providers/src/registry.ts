import { ConfigError, type Settings } from '@switchboard/config';
import { AppError, type ModelList, modelNotFound, unixSeconds } from '@switchboard/protocol';
import { AnthropicProvider } from './anthropic/index.js';
import { Gateway } from './gateway.js';
import { LocalProvider } from './local/index.js';
import { OpenAIProvider } from './openai/index.js';
import type { Provider } from './provider.js';
import type { ProviderLog } from './upstream-pool.js';
import { warmTokenizer } from './usage.js';

export interface ResolvedModel {
  /** `<provider>/<model>`, as the response's `model` names it. */
  id: string;
  provider: Provider;
  /** The name the upstream knows the model by. */
  upstreamModel: string;
}

/**
 * Which provider serves which model id. Built once at start-up; `resolve` is a map look-up.
 * Ids split on the first `/` (`openrouter/meta/llama-3` is provider `openrouter`, model
 * `meta/llama-3`); `default` is the configured default model; a bare model name works when
 * exactly one provider lists it, and is a 400 naming the candidates when several do.
 */
export class ModelRegistry {
  private readonly byId = new Map<string, ResolvedModel>();
  private readonly byBareName = new Map<string, ResolvedModel[]>();
  readonly providers: readonly Provider[];
  readonly modelList: ModelList;

  /** @throws ConfigError when `defaultModel` names no served model. */
  constructor(providers: Provider[], defaultModel: string) {
    this.providers = providers;
    const created = unixSeconds();
    const data: ModelList['data'] = [];
    for (const provider of providers) {
      for (const upstreamModel of provider.models) {
        const entry: ResolvedModel = { id: `${provider.name}/${upstreamModel}`, provider, upstreamModel };
        this.byId.set(entry.id, entry);
        this.byBareName.set(upstreamModel, [...(this.byBareName.get(upstreamModel) ?? []), entry]);
        data.push({ id: entry.id, object: 'model', created, owned_by: provider.name });
      }
    }
    this.modelList = { object: 'list', data };
    const fallback = this.byId.get(defaultModel);
    if (!fallback) {
      throw new ConfigError(
        `defaultModel: '${defaultModel}' is not served by any configured provider (served: ${data.map((m) => m.id).join(', ')})`,
      );
    }
    this.byId.set('default', fallback);
  }

  resolve(model: string): ResolvedModel {
    const found = this.byId.get(model);
    if (found) return found;
    const candidates = this.byBareName.get(model) ?? [];
    if (candidates.length === 1) return candidates[0]!;
    if (candidates.length > 1) throw ambiguousModel(model, candidates);
    throw modelNotFound(model);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.providers.map((p) => p.close()));
  }
}

/** 400: a bare name several providers serve; the client must say which. */
function ambiguousModel(model: string, candidates: ResolvedModel[]): AppError {
  const ids = candidates.map((c) => c.id).join(', ');
  return new AppError(`The model '${model}' is served by several providers (${ids}): name one as <provider>/<model>.`, {
    status: 400,
    type: 'invalid_request_error',
    param: 'model',
    code: 'ambiguous_model',
  });
}

export interface GatewayOptions {
  /**
   * false: each provider makes one attempt per call and the caller owns retries — the worker,
   * whose job attempts are the one retry loop around a hook message. @defaultValue true
   */
  retries?: boolean;
  /** Where providers warn (a connection pool too small for the load). */
  log?: ProviderLog;
}

/** Every configured provider plus the built-in `local` (which a configured `local` replaces). */
export function createRegistry(settings: Settings, options: GatewayOptions = {}): ModelRegistry {
  const providers: Provider[] = [];
  if (!settings.config.providers.local) providers.push(new LocalProvider());
  for (const [name, configured] of Object.entries(settings.config.providers)) {
    const config = options.retries === false ? { ...configured, maxRetries: 0 } : configured;
    providers.push(
      config.type === 'anthropic'
        ? new AnthropicProvider(name, config, options.log)
        : new OpenAIProvider(name, config, options.log),
    );
  }
  return new ModelRegistry(providers, settings.defaultModel);
}

/**
 * The registry and the gateway over it, with the configured fallbacks; loads the tokenizer now,
 * not on the first request.
 * @throws ConfigError when `defaultModel` or a `fallbacks` entry names no served model.
 */
export function createGateway(settings: Settings, options: GatewayOptions = {}): Gateway {
  warmTokenizer();
  return new Gateway(createRegistry(settings, options), settings.config.fallbacks);
}
