import type { Settings } from '@switchboard/config';
import { AppError, invalidRequest, type ModelEntry, modelNotFound, unixSeconds } from '@switchboard/protocol';
import { AnthropicProvider } from './anthropic/index.js';
import { AzureProvider } from './azure/index.js';
import { LocalProvider } from './local/index.js';
import { OpenAIProvider } from './openai/index.js';
import type { Provider } from './provider.js';
import type { ProviderLog } from './upstream-pool.js';

/**
 * Chat models answer /v1/chat/completions and /v1/responses; embedding models /v1/embeddings;
 * audio models /v1/audio/transcriptions.
 */
export type ModelKind = 'chat' | 'embedding' | 'audio';

/** Every kind, in the order deployments are listed. */
export const MODEL_KINDS: readonly ModelKind[] = ['chat', 'embedding', 'audio'];

const KIND_NAMES: Record<ModelKind, string> = {
  chat: 'a chat model',
  embedding: 'an embedding model',
  audio: 'a speech-to-text model',
};

function modelsOf(provider: Provider, kind: ModelKind): readonly string[] {
  if (kind === 'chat') return provider.models;
  return kind === 'embedding' ? provider.embeddingModels : provider.audioModels;
}

export interface ResolvedModel {
  /** `<provider>/<model>`, as the response's `model` names it: one deployment. */
  id: string;
  provider: Provider;
  /** The name the upstream knows the model by. */
  upstreamModel: string;
  kind: ModelKind;
}

/**
 * Which provider serves which model id. Built once at start-up; `resolve` is a map look-up.
 * Ids split on the first `/` (`openrouter/meta/llama-3` is provider `openrouter`, model
 * `meta/llama-3`); a bare model name works when exactly one provider lists it, and is a 400
 * naming the candidates when several do. `default` and route names are the Gateway's (route-table.ts).
 */
export class ModelRegistry {
  private readonly byId = new Map<string, ResolvedModel>();
  /** `<kind>:<bare model name>` → every deployment that serves it. */
  private readonly byBareName = new Map<string, ResolvedModel[]>();
  readonly providers: readonly Provider[];
  /** Every deployment, chat models first, in configuration order. */
  readonly models: readonly ResolvedModel[];
  readonly entries: readonly ModelEntry[];

  constructor(
    providers: Provider[],
    /** The model or route `default` stands for. */
    readonly defaultModel: string,
  ) {
    this.providers = providers;
    const created = unixSeconds();
    const models: ResolvedModel[] = [];
    for (const kind of MODEL_KINDS) {
      for (const provider of providers) {
        for (const upstreamModel of modelsOf(provider, kind)) {
          const entry: ResolvedModel = { id: `${provider.name}/${upstreamModel}`, provider, upstreamModel, kind };
          if (this.byId.has(entry.id)) continue; // listed twice: the first wins
          this.byId.set(entry.id, entry);
          const bare = `${kind}:${upstreamModel}`;
          this.byBareName.set(bare, [...(this.byBareName.get(bare) ?? []), entry]);
          models.push(entry);
        }
      }
    }
    this.models = models;
    this.entries = models.map((m) => ({ id: m.id, object: 'model', created, owned_by: m.provider.name }));
  }

  /** Whether `id` is exactly a served model's `<provider>/<model>`. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The deployment `model` names; 404 when none, 400 when it is a model of another kind. */
  resolve(model: string, kind: ModelKind = 'chat'): ResolvedModel {
    const found = this.find(model, kind);
    if (found) return found;
    const other = MODEL_KINDS.filter((k) => k !== kind)
      .map((k) => this.find(model, k))
      .find((found) => found !== undefined);
    if (other) {
      throw invalidRequest(
        `The model '${other.id}' is ${KIND_NAMES[other.kind]}; it is not served on this endpoint.`,
        'model',
        'model_not_supported',
      );
    }
    throw modelNotFound(model);
  }

  private find(model: string, kind: ModelKind): ResolvedModel | undefined {
    const byId = this.byId.get(model);
    if (byId) return byId.kind === kind ? byId : undefined;
    const candidates = this.byBareName.get(`${kind}:${model}`) ?? [];
    if (candidates.length > 1) throw ambiguousModel(model, candidates);
    return candidates[0];
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

export interface RegistryOptions {
  /** Where providers report what an operator should know (a pool that ran out of connections). */
  log?: ProviderLog;
  /**
   * false: each provider makes one attempt per call and the caller owns retries — the worker,
   * whose job attempts are the one retry loop around a hook message. @defaultValue true
   */
  retries?: boolean;
  /** Told each time a provider sends a request again (metrics). */
  onRetry?: (provider: string) => void;
}

/** Every configured provider plus the built-in `local` (which a configured `local` replaces). */
export function createRegistry(settings: Settings, options: RegistryOptions = {}): ModelRegistry {
  const providers: Provider[] = [];
  if (!settings.config.providers.local) providers.push(new LocalProvider());
  for (const [name, configured] of Object.entries(settings.config.providers)) {
    const config = options.retries === false ? { ...configured, maxRetries: 0 } : configured;
    const hooks = { ...(options.log ? { log: options.log } : {}), ...(options.onRetry ? { onRetry: options.onRetry } : {}) };
    if (config.type === 'anthropic') providers.push(new AnthropicProvider(name, config, hooks));
    else if (config.type === 'azure') providers.push(new AzureProvider(name, config, hooks));
    else providers.push(new OpenAIProvider(name, config, undefined, undefined, hooks));
  }
  return new ModelRegistry(providers, settings.defaultModel);
}
