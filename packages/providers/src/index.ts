export { type CancelSignal, CancelSource, toAbortSignal } from '@switchboard/http';
export * from './create-gateway.js';
export * from './gateway.js';
export type { DeploymentRef, GatewayObserver } from './gateway-observer.js';
export type { ProviderHooks } from './http-provider.js';
export { chunkJson } from './normalize-stream.js';
export type {
  CallContext,
  Provider,
  ProviderChunk,
  ProviderCompletion,
  ProviderEmbeddings,
  ProviderTranscription,
  TranscriptionInput,
} from './provider.js';
export * from './registry.js';
export * from './responses/index.js';
export * from './routing/cooldown-store.js';
export type { RouteMember, RoutePlan, Target } from './routing/route-table.js';
export { isAbort } from './upstream-http.js';
export type { ProviderLog } from './upstream-pool.js';
export { countPromptTokens, countText, warmTokenizer } from './usage.js';
