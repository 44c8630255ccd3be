export * from './gateway.js';
export type { CallContext, Provider, ProviderChunk, ProviderCompletion } from './provider.js';
export * from './registry.js';
export { parseSse, type SseEvent } from './sse-parser.js';
export { isAbort } from './upstream-http.js';
export type { ProviderLog } from './upstream-pool.js';
export { countPromptTokens, countText, warmTokenizer } from './usage.js';
