import { parseRetryAfter } from './retry-after.js';

/**
 * The error hierarchy every layer throws. One middleware turns any of these into the OpenAI
 * error body `{"error":{"message","type","param","code"}}`; anything else becomes a 500
 * `api_error` whose message is never shown to the client.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'insufficient_quota'
  | 'upstream_error'
  | 'timeout_error'
  | 'service_unavailable_error'
  | 'api_error';

export interface AppErrorOptions {
  status: number;
  type: ErrorType;
  code?: string | null;
  param?: string | null;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(message: string, options: AppErrorOptions) {
    // A 4xx is the client's doing, answered and never logged with a stack: it gets none (capturing
    // one was a measurable share of a refused request's CPU). A 5xx keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (options.status < 500) Error.stackTraceLimit = 0;
    super(message, { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    this.status = options.status;
    this.type = options.type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  /** Whether a retry of the same call may succeed (408, 409, 429, 5xx), as vercel/ai decides. */
  get isRetryable(): boolean {
    return isRetryableStatus(this.status);
  }

  /** How long the failure asked to wait before a retry (its `Retry-After` header), in ms. */
  get retryAfterMs(): number | undefined {
    return parseRetryAfter(this.headers['Retry-After']);
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new AppError(message, { status: 400, type: 'invalid_request_error', param, code });

export const notFound = (message: string, code = 'not_found') =>
  new AppError(message, { status: 404, type: 'invalid_request_error', code });

export const modelNotFound = (model: string) =>
  new AppError(`The model '${model.length > 200 ? `${model.slice(0, 200)}…` : model}' does not exist or is not served here.`, {
    status: 404,
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  });

export const methodNotAllowed = (method: string, path: string, allowed: string[]) =>
  new AppError(`Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`, {
    status: 405,
    type: 'invalid_request_error',
    code: 'method_not_allowed',
    headers: { Allow: allowed.join(', ') },
  });

export const upstreamError = (message: string, code = 'upstream_error', cause?: unknown) =>
  new AppError(message, { status: 502, type: 'upstream_error', code, cause });

export const upstreamTimeout = (message: string, cause?: unknown) =>
  new AppError(message, { status: 504, type: 'timeout_error', code: 'upstream_timeout', cause });

export const serviceUnavailable = (message: string, code = 'service_unavailable') =>
  new AppError(message, { status: 503, type: 'service_unavailable_error', code });

export const unauthorized = (message: string, code = 'invalid_api_key') =>
  new AppError(message, { status: 401, type: 'authentication_error', code });

/** 429 `rate_limit_exceeded`, telling the client when to come back. */
export const rateLimitExceeded = (message: string, retryAfterSeconds: number) =>
  new AppError(message, {
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/**
 * 429 `insufficient_quota` (OpenAI's shape for a spent quota): a budget (`tokensPerDay`,
 * `costPerMonth`) is used up. Not retryable: only the budget's next day or month cures it, so a
 * hook message fails for good instead of looping through its attempts.
 */
export class QuotaExceeded extends AppError {
  constructor(message: string) {
    super(message, { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
    this.name = 'QuotaExceeded';
  }

  override get isRetryable(): boolean {
    return false;
  }
}
