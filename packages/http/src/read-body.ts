import { type DestroyableBody, IdleTimer } from './deadline.js';

/** A body that went past the limit its reader set. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`The response body is larger than ${limit} bytes.`);
  }
}

export interface ReadBodyOptions {
  /** Past the limit, return what was read and drop the rest instead of throwing. */
  truncate?: boolean;
  /**
   * Each chunk must arrive within `ms` of being awaited, else the body is destroyed with
   * `onSilence()` and that error is thrown (`IdleTimer`).
   */
  idle?: { ms: number; onSilence: () => Error };
}

/**
 * Reads a response body as UTF-8 text, at most `limit` bytes: error bodies and platform answers
 * must never exhaust memory. Past the limit it throws `BodyTooLargeError`, or with `truncate`
 * returns what it had and drops the rest.
 */
export async function readBody(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => unknown },
  limit: number,
  options: ReadBodyOptions = {},
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  const chunks = body[Symbol.asyncIterator]();
  const { idle } = options;
  const silence = idle ? new IdleTimer(body as DestroyableBody<Uint8Array>, idle.ms, idle.onSilence) : undefined;
  let ended = false;
  try {
    for (;;) {
      const next = await (silence ? silence.next(chunks) : chunks.next());
      if (next.done) {
        ended = true;
        break;
      }
      const chunk = next.value;
      size += chunk.length;
      if (size > limit) {
        if (!options.truncate) throw new BodyTooLargeError(limit);
        body.destroy?.();
        break;
      }
      // A view, not a copy: undici's chunks are Buffers already, and are not reused after they are yielded.
      parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  } finally {
    silence?.stop();
    // Stopped early (too large, or failed): the body is closed, as `for await` over it would.
    if (!ended) await chunks.return?.();
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
