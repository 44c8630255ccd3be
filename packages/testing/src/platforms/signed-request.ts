/**
 * The shape of an inbound webhook request as a channel adapter reads it: the raw bytes (platform
 * signatures are computed over them), the headers, and the clock to check timestamps against.
 * Structurally the same as `InboundRequest` of @switchboard/channels, which this package must
 * not depend on.
 */
export interface SignedRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** Unix milliseconds. */
  now: number;
}

/** The fixed clock of the sample requests (2025-01-15 12:00 UTC), matching the sample bodies' times. */
export const SAMPLE_NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

/** A JSON request with the given headers; a string body is sent as is (for malformed JSON). */
export function jsonRequest(body: unknown, headers: SignedRequest['headers'] = {}, now = SAMPLE_NOW): SignedRequest {
  const rawBody = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return { headers: { 'content-type': 'application/json', ...headers }, rawBody, now };
}
