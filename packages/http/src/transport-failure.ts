import { errors } from 'undici';

/**
 * What went wrong below HTTP: the one classification both channels and providers map to their
 * own errors (a `DeliveryError`, a 502/504 `AppError`).
 * - `timeout`: no response headers, or silence between body chunks, for too long
 * - `connect-timeout`: the connection could not be opened in time
 * - `aborted`: our own signal cancelled the request (a client hung up, a shutdown)
 * - `unreachable`: anything else (refused, reset, DNS…)
 */
export type TransportFailureKind = 'timeout' | 'connect-timeout' | 'aborted' | 'unreachable';

export interface TransportFailure {
  kind: TransportFailureKind;
  /** The system or undici error code (`ECONNREFUSED`, `UND_ERR_SOCKET`…), never a URL: URLs can hold tokens. */
  code: string;
}

export function classifyTransportFailure(err: unknown): TransportFailure {
  const code = errorCode(err);
  if (isAbort(err)) return { kind: 'aborted', code };
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError) return { kind: 'timeout', code };
  if (err instanceof errors.ConnectTimeoutError) return { kind: 'connect-timeout', code };
  return { kind: 'unreachable', code };
}

/** True for a request cancelled by its AbortSignal, however undici or fetch reports it. */
export function isAbort(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err.name === 'AbortError' ||
      (err as { code?: string }).code === 'UND_ERR_ABORTED' ||
      err instanceof errors.RequestAbortedError)
  );
}

/** The error's code, or its cause's, else `network error`. */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : 'network error';
}
