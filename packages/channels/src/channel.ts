import type { HookConfig } from '@switchboard/config';

/**
 * The small interface every channel implements (compare the Vercel Chat SDK's `Adapter`, kept
 * smaller): verify and parse an inbound HTTP request into at most one normalized message, and
 * deliver a reply, split to the platform's length limit.
 */

/** What the API hands an adapter: the raw bytes (signatures are over them) and the headers. */
export interface InboundRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** Unix milliseconds, for timestamp checks. */
  now: number;
}

/** Everything a worker needs to answer and deliver, JSON-serializable (it is stored in the job). */
export interface InboundMessage {
  /** `chat` asks for a reply; `reset` clears the conversation's memory. */
  action: 'chat' | 'reset';
  text: string;
  /** Sender id as the platform names it. */
  from: string;
  /** Conversation key within the hook: Slack channel+thread, Telegram chat, Discord channel+user, generic sender. */
  conversation: string;
  /** A key the platform repeats on retries (event_id, update_id, interaction id, Idempotency-Key). */
  dedupeKey: string | null;
  /** Adapter-specific data that `deliver` needs (channel and thread, chat id, interaction token…). */
  replyTo: Record<string, string | number>;
}

/** How the API must answer the platform right now. */
export type Inbound =
  /** Queue `message`, then answer with `ack(jobId)`. */
  | { kind: 'message'; message: InboundMessage; ack: (jobId: string) => HttpAnswer }
  /** Answer at once, queue nothing (url_verification, PING, ignored bot messages…). */
  | { kind: 'answer'; answer: HttpAnswer };

export interface HttpAnswer {
  status: number;
  body: unknown;
}

export interface DeliveryMeta {
  jobId: string;
  hook: string;
  model: string;
  /** Unix seconds when the reply was generated. */
  created: number;
}

export interface ChannelAdapter {
  readonly type: HookConfig['type'];
  /**
   * Verifies and parses a request. Throws an `AppError` from @switchboard/protocol: 401
   * (`invalid_signature` / `invalid_token`) for bad credentials, 400 for a malformed body.
   */
  receive(request: InboundRequest): Inbound;
  /** The reply cut into the pieces the platform accepts (Telegram 4096, Discord 2000 characters…). */
  split(text: string): string[];
  /**
   * Sends piece `index` of a reply. Throws `DeliveryError`: retryable for network errors, 5xx and
   * 429; not retryable for other 4xx (with `credentialsRefused` for 401/403 or the platform's
   * invalid-auth answers).
   */
  deliverPart(message: InboundMessage, part: string, index: number, meta: DeliveryMeta): Promise<void>;
  close(): Promise<void>;
}

export class DeliveryError extends Error {
  override name = 'DeliveryError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly options: { credentialsRefused?: boolean; retryAfterMs?: number } = {},
  ) {
    super(message);
  }
}
