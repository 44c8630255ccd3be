import type { CooldownConfig, RoutesConfig } from '@switchboard/config';
import {
  AppError,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  completionId,
  type EmbeddingsRequest,
  type EmbeddingsResponse,
  encodeEmbedding,
  type ModelEntry,
  type ModelList,
  messageText,
  type Usage,
  unixSeconds,
} from '@switchboard/protocol';
import type { DeploymentRef, GatewayObserver } from './gateway-observer.js';
import { normalizeStream } from './normalize-stream.js';
import type { CallContext, ProviderTranscription, TranscriptionInput } from './provider.js';
import type { ModelKind, ModelRegistry, ResolvedModel } from './registry.js';
import type { CooldownStore, DeploymentHealth } from './routing/cooldown-store.js';
import { Cooldowns } from './routing/cooldowns.js';
import { orderDeployments } from './routing/order-deployments.js';
import { anyKind, type RoutePlan, RouteTable } from './routing/route-table.js';
import { countEmbeddingInput, countPromptTokens, countText, makeUsage } from './usage.js';

export interface CompletionStream {
  id: string;
  model: string;
  /**
   * The chunks as they come, those of one upstream read together in one array. Read either this
   * or `chunks`, once: both draw on the same upstream.
   */
  batches: AsyncIterable<ChatCompletionChunk[]>;
  /** The same chunks one at a time. */
  chunks: AsyncIterable<ChatCompletionChunk>;
}

export interface GatewayOptions {
  /** `{ "<name>": [{ model, weight }] }`: names served by several deployments. */
  routes?: RoutesConfig;
  /**
   * `{ "<model or route>": ["<model or route>", …] }`: when a target still fails (429, 5xx,
   * unreachable, time-out), the next one in its chain serves the request. Checked at start-up.
   */
  fallbacks?: Record<string, string[]>;
  /** How long a failing deployment is left alone. @defaultValue 30 s without Retry-After, at most 5 min */
  cooldown?: CooldownConfig;
  /** Where cooldowns are shared. @defaultValue this process's memory only */
  cooldowns?: CooldownStore;
  /** Told when the shared store fails; the gateway then goes on with this process's own knowledge. */
  onStoreError?: (err: unknown) => void;
  /** Told of tokens, upstream errors and fallbacks as they happen (the apps' metrics). */
  observer?: GatewayObserver;
  /** @defaultValue Math.random */
  random?: () => number;
}

/**
 * The service both apps use for model calls: resolves the name (route, model, `default`), picks
 * a healthy deployment, calls its provider, moves on to the next deployment and then the
 * fallbacks when one fails in a way another could cure, and stamps one `id`, `created` and
 * `model` on the answer; usage is the upstream's, else counted.
 */
export class Gateway {
  readonly routes: RouteTable;
  /** GET /v1/models: every deployment, then the routes (owned by `switchboard`). */
  readonly modelList: ModelList;
  private readonly cooldowns: Cooldowns;
  private readonly random: () => number;
  private readonly observer: GatewayObserver | undefined;

  constructor(
    readonly registry: ModelRegistry,
    options: GatewayOptions = {},
  ) {
    this.routes = new RouteTable(registry, options.routes, options.fallbacks);
    const cooldown = options.cooldown ?? { defaultMs: 30_000, maxMs: 300_000 };
    this.cooldowns = new Cooldowns(cooldown, options.cooldowns, options.onStoreError ?? (() => {}));
    this.random = options.random ?? Math.random;
    this.observer = options.observer;
    const created = unixSeconds();
    const routeEntries = this.routes.routeNames.map(
      (id): ModelEntry => ({ id, object: 'model', created, owned_by: 'switchboard' }),
    );
    this.modelList = { object: 'list', data: [...registry.entries, ...routeEntries] };
  }

  /** GET /v1/models/{id}: the list entry `id` names (`default` and bare names too); 404 when none. */
  describeModel(id: string): ModelEntry {
    const name = anyKind((kind) => this.routes.target(id, kind).name);
    return this.modelList.data.find((m) => m.id === name)!;
  }

  /**
   * What `model` names for one kind of call — its route or deployment, then its fallbacks — or
   * 404 `model_not_found` / 400 `model_not_supported`. A caller that needs the name before the
   * call (the API's price and cache key) resolves it here once and passes the plan to `complete`,
   * `stream` or `embed`; without one they resolve `request.model` themselves.
   */
  plan(model: string, kind: ModelKind): RoutePlan {
    return this.routes.plan(model, kind);
  }

  async complete(
    request: ChatCompletionRequest,
    ctx: CallContext,
    plan: RoutePlan = this.plan(request.model, 'chat'),
  ): Promise<ChatCompletion> {
    const { deployment, value: answer } = await this.run(plan, 'chat', ctx, (d, c) =>
      d.provider.complete(request, d.upstreamModel, c),
    );
    const usage =
      answer.usage ??
      makeUsage(
        countPromptTokens(request.messages),
        answer.choices.reduce((sum, c) => sum + countText(messageText(c.message.content)), 0),
      );
    ctx.onUsage?.(usage, deployment.id);
    this.observer?.usage?.(ref(deployment), usage.prompt_tokens, usage.completion_tokens);
    return {
      ...answer.extra,
      id: completionId(),
      object: 'chat.completion',
      created: unixSeconds(),
      model: deployment.id,
      choices: answer.choices,
      usage,
    };
  }

  /** Resolves once the upstream has accepted the request; chunks then flow as they arrive. */
  async stream(
    request: ChatCompletionRequest,
    ctx: CallContext,
    plan: RoutePlan = this.plan(request.model, 'chat'),
  ): Promise<CompletionStream> {
    const { deployment, value: upstream } = await this.run(plan, 'chat', ctx, (d, c) =>
      d.provider.stream(request, d.upstreamModel, c),
    );
    const id = completionId();
    const head = { id, model: deployment.id, created: unixSeconds() };
    const { observer } = this;
    const onEnd =
      ctx.onUsage || observer?.usage
        ? (usage: Usage) => {
            ctx.onUsage?.(usage, deployment.id);
            observer?.usage?.(ref(deployment), usage.prompt_tokens, usage.completion_tokens);
          }
        : undefined;
    const batches = normalizeStream(upstream, request, head, onEnd);
    return { id, model: deployment.id, batches, chunks: new OneByOne(batches) };
  }

  /** Embeddings as floats or base64 (encoded here, whatever the upstream sends); usage counted when not reported. */
  async embed(
    request: EmbeddingsRequest,
    ctx: CallContext,
    plan: RoutePlan = this.plan(request.model, 'embedding'),
  ): Promise<EmbeddingsResponse> {
    const { deployment, value } = await this.run(plan, 'embedding', ctx, (d, c) => {
      if (!d.provider.embed) throw new Error(`provider ${d.provider.name} lists embedding models but cannot embed`);
      return d.provider.embed(request, d.upstreamModel, c);
    });
    const base64 = request.encoding_format === 'base64';
    const promptTokens = value.promptTokens ?? countEmbeddingInput(request.input);
    ctx.onUsage?.(makeUsage(promptTokens, 0), deployment.id);
    return {
      object: 'list',
      data: value.vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? encodeEmbedding(vector) : vector,
      })),
      model: deployment.id,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
  }

  /**
   * Speech to text: the audio sent to the plan's deployments in turn (the Blob is read again for
   * each), the upstream's transcript answered as it came (`model`: the deployment that served). Usage is
   * the upstream's: tokens as prompt (audio and text in) and completion (text out); a `duration`
   * usage (whisper-1 reports seconds) is recorded as a call of 0 tokens, as is an answer without usage.
   */
  async transcribe(
    input: TranscriptionInput,
    ctx: CallContext,
    plan: RoutePlan = this.plan(input.fields.model, 'audio'),
  ): Promise<{ model: string; transcription: ProviderTranscription }> {
    const { deployment, value } = await this.run(plan, 'audio', ctx, (d, c) => {
      if (!d.provider.transcribe) throw new Error(`provider ${d.provider.name} lists audio models but cannot transcribe`);
      return d.provider.transcribe(input, d.upstreamModel, c);
    });
    const usage = value.format === 'json' && value.usage?.type === 'tokens' ? value.usage : undefined;
    const counted = makeUsage(usage?.input_tokens ?? 0, usage?.output_tokens ?? 0);
    ctx.onUsage?.(counted, deployment.id);
    this.observer?.usage?.(ref(deployment), counted.prompt_tokens, counted.completion_tokens);
    return { model: deployment.id, transcription: value };
  }

  /** What is known of every deployment's health (the shared store's view; throws when it cannot be read). */
  health(): Promise<Map<string, DeploymentHealth>> {
    return this.cooldowns.store.read();
  }

  /**
   * Tries the plan's targets in order, and within a route its deployments (healthy ones by
   * weight, else the first to recover). A failure another deployment could cure (429, 5xx,
   * time-out, unreachable) cools that deployment down for everyone sharing the store and moves
   * on; anything else, or a client that hung up, ends the request. A deployment with another
   * of its route still to try makes one attempt: the next deployment is its retry.
   */
  private async run<T>(
    { kind: planned, targets: plan }: RoutePlan,
    kind: ModelKind,
    ctx: CallContext,
    call: (deployment: ResolvedModel, ctx: CallContext) => Promise<T>,
  ): Promise<{ deployment: ResolvedModel; value: T }> {
    if (planned !== kind) throw new Error(`a ${planned} plan was given to a ${kind} call`); // a caller's bug, never a client's
    const health = plan.some((target) => target.members.length > 1) ? await this.cooldowns.read() : NO_HEALTH;
    const coolingFor = (id: string) => health.get(id)?.coolingForMs ?? 0;
    let failure: unknown;
    for (let t = 0; t < plan.length; t++) {
      const target = plan[t]!;
      // One deployment is its own order, healthy or not: nothing to draw.
      const order =
        target.members.length === 1
          ? [target.members[0]!.model]
          : orderDeployments(
              target.members.map((m) => ({ id: m.model.id, weight: m.weight, value: m.model })),
              coolingFor,
              this.random,
            );
      for (let i = 0; i < order.length; i++) {
        const deployment = order[i]!;
        const settled = this.observer?.modelCall?.(ref(deployment));
        try {
          const value = await call(deployment, i < order.length - 1 ? { ...ctx, maxRetries: 0 } : ctx);
          settled?.();
          if (coolingFor(deployment.id) > 0) void this.cooldowns.recovered(deployment.id);
          if (t > 0) this.observer?.fallback?.(plan[0]!.name, target.name);
          return { deployment, value };
        } catch (err) {
          settled?.(err);
          if (ctx.signal.aborted) throw err;
          if (err instanceof AppError) this.observer?.upstreamError?.(ref(deployment), err.code ?? String(err.status));
          if (!(err instanceof AppError) || !err.isRetryable) throw err;
          await this.cooldowns.failed(deployment.id, err);
          failure = err;
        }
      }
    }
    throw failure;
  }
}

/** The chunks of `batches` one at a time (a class: one shape, not a computed-key literal per stream). */
class OneByOne<T> implements AsyncIterable<T> {
  constructor(private readonly batches: AsyncIterable<T[]>) {}
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const batch of this.batches) yield* batch;
  }
}

/** No deployment cooling down (a plan of single deployments reads none). */
const NO_HEALTH: ReadonlyMap<string, DeploymentHealth> = new Map();

/** Each deployment's reference for the observer, made once rather than at every call and usage. */
const refs = new WeakMap<ResolvedModel, DeploymentRef>();
function ref(deployment: ResolvedModel): DeploymentRef {
  let found = refs.get(deployment);
  if (!found) {
    found = { id: deployment.id, provider: deployment.provider.name };
    refs.set(deployment, found);
  }
  return found;
}
