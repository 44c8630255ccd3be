import type { MediaLocation } from '@switchboard/channels';
import { classifyTransportFailure, closePool, createPool } from '@switchboard/http';
import { isRetryableStatus } from '@switchboard/protocol';
import { Agent, type Dispatcher, request } from 'undici';
import { isPrivateAddress, literalAddress, publicOnlyLookup } from './private-address.js';

/** The longest a file's download may take, headers to last byte; between two chunks, at most the idle bound. */
export const MEDIA_TIMEOUT_MS = 30_000;
const MEDIA_IDLE_MS = 10_000;

/**
 * Why a file cannot be used: told to the sender in a short reply, and the job completes. `off`:
 * images (or files of no kind the hook takes) are off; `audio-off`, `documents-off`: that kind is;
 * `unheard`: the transcription failed; `unreadable`: a document's text could not be read in time;
 * `no-vision`: the hook's model cannot see images (`media.vision: false`, or the upstream refused the image).
 */
export type MediaProblem =
  | 'too-big'
  | 'gone'
  | 'private'
  | 'unsupported'
  | 'off'
  | 'audio-off'
  | 'unheard'
  | 'documents-off'
  | 'unreadable'
  | 'no-vision';

/** A file the bot will not use; its message never holds the URL or the bytes. */
export class MediaRefusal extends Error {
  override readonly name = 'MediaRefusal';
  constructor(
    readonly problem: MediaProblem,
    message: string,
  ) {
    super(message);
  }
}

/** A download that may work on a later attempt (a 5xx, a 429, a network failure): thrown for the job's back-off. */
export class MediaUnavailableError extends Error {
  override readonly name = 'MediaUnavailableError';
}

export interface DownloadLimits {
  maxBytes: number;
  /** Caller-given URLs may point at private addresses (hooks' `media.allowPrivateUrls`). */
  allowPrivateUrls: boolean;
  signal: AbortSignal;
}

/**
 * Fetches the files messages carry: streamed, stopped as soon as it passes `maxBytes` (a
 * Content-Length over it is refused before the body is read), bounded in time, and — for URLs a
 * caller gave — never to a private address unless allowed, checked on the address connected to.
 * Two pools: one for platform URLs, one whose sockets refuse private addresses.
 */
export class MediaDownloader {
  readonly #trusted = createPool({ connections: 16, connectTimeoutMs: 10_000 });
  readonly #untrusted = new Agent({ connections: 16, connect: { timeout: 10_000, lookup: publicOnlyLookup } });

  async fetch(location: MediaLocation, limits: DownloadLimits): Promise<Buffer> {
    if ('data' in location) {
      if (location.data.length > limits.maxBytes) throw new MediaRefusal('too-big', 'the file is larger than the limit');
      return location.data;
    }
    const checkAddress = location.untrusted && !limits.allowPrivateUrls;
    const url = new URL(location.url);
    const literal = literalAddress(url);
    // A literal address never goes through the lookup, so it is checked here.
    if (checkAddress && literal && isPrivateAddress(literal))
      throw new MediaRefusal('private', 'the URL points at a private address');
    const dispatcher: Dispatcher = checkAddress ? this.#untrusted : this.#trusted;
    const signal = AbortSignal.any([limits.signal, AbortSignal.timeout(MEDIA_TIMEOUT_MS)]);
    let response: Dispatcher.ResponseData;
    // Redirects are not followed (undici's request does not): a redirect is answered as a file we cannot fetch.
    try {
      response = await request(url, {
        dispatcher,
        method: 'GET',
        headers: location.headers ?? {},
        signal,
        headersTimeout: MEDIA_IDLE_MS,
        bodyTimeout: MEDIA_IDLE_MS,
      });
    } catch (err) {
      throw failure(err, limits.signal);
    }
    const { statusCode, headers, body } = response;
    // Destroying the body (to stop at the limit, or not read an error page) makes it emit an abort
    // error; the reading loop below gets its own errors, so this only keeps that one from being unhandled.
    body.on('error', () => {});
    if (statusCode < 200 || statusCode > 299) {
      body.destroy();
      if (isRetryableStatus(statusCode)) throw new MediaUnavailableError(`the file's server answered ${statusCode}`);
      throw new MediaRefusal('gone', `the file's server answered ${statusCode}`);
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      body.destroy();
      throw new MediaRefusal('too-big', 'the file is larger than the limit');
    }
    const parts: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += (chunk as Buffer).length;
        if (size > limits.maxBytes) {
          body.destroy();
          throw new MediaRefusal('too-big', 'the file is larger than the limit');
        }
        parts.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof MediaRefusal) throw err;
      throw failure(err, limits.signal);
    }
    return Buffer.concat(parts, size);
  }

  async close(): Promise<void> {
    await Promise.all([closePool(this.#trusted), closePool(this.#untrusted)]);
  }
}

/** A transport failure, named by its code only (a URL may hold a token: Telegram's does). */
function failure(err: unknown, jobSignal: AbortSignal): Error {
  if (jobSignal.aborted) return jobSignal.reason instanceof Error ? jobSignal.reason : new Error('cancelled');
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  if (code === 'EPRIVATEADDRESS') return new MediaRefusal('private', 'the URL points at a private address');
  const kind = classifyTransportFailure(err);
  return new MediaUnavailableError(`the file could not be fetched (${kind.kind === 'unreachable' ? kind.code : kind.kind})`);
}
