import {
  type Logger,
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from '@slack/web-api';
import { parseRetryAfter } from '@switchboard/protocol';
import { DeliveryError } from '../delivery-error.js';
import { DELIVERY_TIMEOUT_MS, statusFailure, transportFailure } from '../http.js';
import { checkSlackResult } from './slack-api-result.js';

/** The library logs nothing of ours: failures reach the worker's log as errors, without secrets. */
const silent: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

interface SlackClientConfig {
  botToken: string;
  apiUrl: string;
}

/** One client per hook config (the library keeps a request queue per client). */
const clients = new WeakMap<SlackClientConfig, WebClient>();

/**
 * Slack's own Web API client (`@slack/web-api`), pointed at the hook's `apiUrl`, with its retries
 * and its waiting on 429 turned off: the job's attempts are the one retry loop, and a 429's
 * Retry-After is shared with every worker through the send limiter instead.
 */
export function slackClient(config: SlackClientConfig): WebClient {
  let client = clients.get(config);
  if (!client) {
    client = new WebClient(config.botToken, {
      slackApiUrl: `${config.apiUrl.replace(/\/+$/, '')}/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: DELIVERY_TIMEOUT_MS,
      logger: silent,
    });
    clients.set(config, client);
  }
  return client;
}

/**
 * A failed library call as the `DeliveryError` the job's retry policy reads: rate limits and
 * outages retryable (with Slack's Retry-After), refused credentials flagged, other refusals final.
 */
export function slackFailure(label: string, err: unknown, secrets: readonly string[]): DeliveryError {
  if (err instanceof DeliveryError) return err;
  if (err instanceof WebAPIRateLimitedError) {
    return new DeliveryError(`${label} failed: ratelimited`, true, { retryAfterMs: err.retryAfter * 1000 });
  }
  if (err instanceof WebAPIPlatformError) {
    try {
      checkSlackResult(label, { ok: false, error: err.data.error }, secrets);
    } catch (mapped) {
      if (mapped instanceof DeliveryError) return mapped;
    }
  }
  if (err instanceof WebAPIHTTPError) {
    return statusFailure(label, err.statusCode, err.statusMessage, parseRetryAfter(err.headers['retry-after']));
  }
  if (err instanceof WebAPIRequestError) return transportFailure(label, err.original);
  return new DeliveryError(`${label} failed`, true);
}
