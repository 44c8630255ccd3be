/** A body that went past the limit its reader set. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`The response body is larger than ${limit} bytes.`);
  }
}

/**
 * Reads a response body as UTF-8 text, at most `limit` bytes: error bodies and platform answers
 * must never exhaust memory. Past the limit it throws `BodyTooLargeError`, or with `truncate`
 * returns what it had and drops the rest.
 */
export async function readBody(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  limit: number,
  options: { truncate?: boolean } = {},
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      if (!options.truncate) throw new BodyTooLargeError(limit);
      body.destroy?.();
      break;
    }
    // A view, not a copy: undici's chunks are Buffers already, and are not reused after they are yielded.
    parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)).toString('utf8');
}

/** The parsed JSON, or undefined when the text is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
