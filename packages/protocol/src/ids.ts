import { randomFillSync } from 'node:crypto';

/**
 * 16 random bytes as 32 hex characters, from a pool of random bytes filled 512 ids at a time
 * (a synchronous randomBytes call per request cost ~15 µs on the hot path). One native hex
 * encoding per id: randomUUID's string built from a table and then stripped of its dashes
 * allocated some 1.4 KB per id.
 */
const POOL = Buffer.alloc(16 * 512);
let taken = POOL.length;
function randomHex(): string {
  if (taken === POOL.length) {
    randomFillSync(POOL);
    taken = 0;
  }
  taken += 16;
  return POOL.toString('hex', taken - 16, taken);
}

/** `chatcmpl-` plus 32 random hex characters, as OpenAI's ids look. */
export function completionId(): string {
  return `chatcmpl-${randomHex()}`;
}

/** `resp_…`: a Responses API response. */
export function responseId(): string {
  return `resp_${randomHex()}`;
}

/** An output item's id: `msg_…` a message, `fc_…` a function call, `mcp_…` an MCP call, `mcpl_…` an MCP tool list. */
export function itemId(prefix: 'msg' | 'fc' | 'mcp' | 'mcpl'): string {
  return `${prefix}_${randomHex()}`;
}

export function unixSeconds(date = Date.now()): number {
  return Math.floor(date / 1000);
}
