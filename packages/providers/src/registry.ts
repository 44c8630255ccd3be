import type { Settings } from '@switchboard/config';
import { type ModelList, modelNotFound, unixSeconds } from '@switchboard/protocol';
import { AnthropicProvider } from './anthropic/index.js';
import { Gateway } from './gateway.js';
import { LocalProvider } from './local/index.js';
import { OpenAIProvider } from './openai/index.js';
import type { Provider } from './provider.js';
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
 * exactly one provider lists it.
 */
export class ModelRegistry {
  private readonly byId = new Map<string, ResolvedModel>();
  private readonly byBareName = new Map<string, ResolvedModel | null>();
  readonly providers: readonly Provider[];
  readonly modelList: ModelList;

  constructor(providers: Provider[], defaultModel: string) {
    this.providers = providers;
    const created = unixSeconds();
    const data: ModelList['data'] = [];
    for (const provider of providers) {
      for (const upstreamModel of provider.models) {
        const entry: ResolvedModel = { id: `${provider.name}/${upstreamModel}`, provider, upstreamModel };
        this.byId.set(entry.id, entry);
        this.byBareName.set(upstreamModel, this.byBareName.has(upstreamModel) ? null : entry);
        data.push({ id: entry.id, object: 'model', created, owned_by: provider.name });
      }
    }
    this.modelList = { object: 'list', data };
    const fallback = this.byId.get(defaultModel);
    if (!fallback) throw new Error(`defaultModel '${defaultModel}' is not served by any configured provider`);
    this.byId.set('default', fallback);
  }

  resolve(model: string): ResolvedModel {
    const found = this.byId.get(model) ?? this.byBareName.get(model);
    if (!found) throw modelNotFound(model);
    return found;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.providers.map((p) => p.close()));
  }
}

export interface GatewayOptions {
  /**
   * false: each provider makes one attempt per call and the caller owns retries — the worker,
   * whose job attempts are the one retry loop around a hook message. @defaultValue true
   */
  retries?: boolean;
}

/** Every configured provider plus the built-in `local` (which a configured `local` replaces). */
export function createRegistry(settings: Settings, options: GatewayOptions = {}): ModelRegistry {
  const providers: Provider[] = [];
  if (!settings.config.providers.local) providers.push(new LocalProvider());
  for (const [name, configured] of Object.entries(settings.config.providers)) {
    const config = options.retries === false ? { ...configured, maxRetries: 0 } : configured;
    providers.push(config.type === 'anthropic' ? new AnthropicProvider(name, config) : new OpenAIProvider(name, config));
  }
  return new ModelRegistry(providers, settings.defaultModel);
}

/** The registry and the gateway over it, with the configured fallbacks; loads the tokenizer now, not on the first request. */
export function createGateway(settings: Settings, options: GatewayOptions = {}): Gateway {
  warmTokenizer();
  return new Gateway(createRegistry(settings, options), settings.config.fallbacks);
}
