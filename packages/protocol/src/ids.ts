import { randomUUID } from 'node:crypto';

/**
 * `chatcmpl-` plus 32 random hex characters, as OpenAI's ids look. randomUUID draws from a
 * cached entropy pool: a synchronous randomBytes call per request cost ~15 µs on the hot path.
 */
export function completionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

/** `resp_…`: a Responses API response. */
export function responseId(): string {
  return `resp_${randomUUID().replaceAll('-', '')}`;
}

/** An output item's id: `msg_…` a message, `fc_…` a function call, `mcp_…` an MCP call, `mcpl_…` an MCP tool list. */
export function itemId(prefix: 'msg' | 'fc' | 'mcp' | 'mcpl'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

export function unixSeconds(date = Date.now()): number {
  return Math.floor(date / 1000);
}
