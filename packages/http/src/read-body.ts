import { type DestroyableBody, IdleTimer } from './deadline.js';

/** A listener for an error nobody waits for any more (undici fails a body destroyed before its end with 'aborted'). */
const ignore = () => {};

/** What a body closed with neither an end nor an error fails with, as a Readable's async iterator says. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

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

/** A Node Readable as far as `readBody` uses it: chunks as `'data'` events. */
interface EventBody {
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): unknown;
}

const isEventBody = (body: object): body is EventBody =>
  typeof (body as Partial<EventBody>).on === 'function' && typeof (body as Partial<EventBody>).off === 'function';

/**
 * Reads a response body as UTF-8 text, at most `limit` bytes: error bodies and platform answers
 * must never exhaust memory. Past the limit it throws `BodyTooLargeError`, or with `truncate`
 * returns what it had and drops the rest. A Node Readable (undici's bodies) is read with
 * `'data'` events and one promise, not through its async iterator, which costs a promise per
 * chunk and end-of-stream bookkeeping on every answer of the hot path.
 */
export function readBody(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => unknown },
  limit: number,
  options: ReadBodyOptions = {},
): Promise<string> {
  if (!isEventBody(body)) return readIterable(body, limit, options);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const { idle } = options;
    // The body flows: each chunk is taken as it arrives, so the reader is never the slow one and
    // one timer restarted at each chunk is the silence watch.
    const silence = idle ? setTimeout(() => body.destroy(idle.onSilence()), idle.ms) : undefined;
    const settle = (err: unknown, text?: string) => {
      if (settled) return;
      settled = true;
      if (silence) clearTimeout(silence);
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (err === undefined) resolve(text as string);
      else reject(err);
    };
    const onData = (chunk: Uint8Array) => {
      silence?.refresh();
      size += chunk.length;
      if (size > limit) {
        settle(options.truncate ? undefined : new BodyTooLargeError(limit), options.truncate ? joined(parts) : undefined);
        // The rest is not wanted: close the connection rather than read it. undici fails a body
        // destroyed before its end with an 'aborted' error, which must find a listener.
        body.on('error', ignore);
        body.destroy();
        return;
      }
      parts.push(asBuffer(chunk));
    };
    const onEnd = () => settle(undefined, joined(parts));
    const onError = (err: Error) => settle(err);
    // Closed with neither an end nor an error (destroyed without one): cut short, as the iterator says.
    const onClose = () => settle(prematureClose());
    const state = body as { destroyed?: boolean; errored?: unknown };
    if (state.destroyed) {
      settle(state.errored ?? prematureClose()); // gone before it was read: its 'close' has been heard already
      return;
    }
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/** `readBody` for any other async iterable of chunks (a generator in a test, a WHATWG stream). */
async function readIterable(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => unknown },
  limit: number,
  options: ReadBodyOptions,
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
      parts.push(asBuffer(chunk));
    }
  } finally {
    silence?.stop();
    // Stopped early (too large, or failed): the body is closed, as `for await` over it would.
    if (!ended) await chunks.return?.();
  }
  return joined(parts);
}

/** A view, not a copy: undici's chunks are Buffers already, and are not reused after they are yielded. */
const asBuffer = (chunk: Uint8Array): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

const joined = (parts: Buffer[]): string => (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)).toString('utf8');

/** The parsed JSON, or undefined when the text is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
