import type { IncomingHttpHeaders } from 'node:http';
import type { InboundMessage, MediaRef } from '@switchboard/protocol';
import type { z } from 'zod';
import type { ApprovalClick, ApprovalOutcome, ApprovalQuestion, PromptRef, SettledOutcome } from './approvals/approval.js';
import type { CredentialCheck } from './credential-check.js';
import type { DeliveryClient } from './http.js';
import type { LiveChannel } from './live/live-reply.js';
import type { SendTarget } from './live/send-gate.js';
import type { MediaLocation } from './media/media-location.js';

/**
 * A channel is one definition: its hooks' config schema, which of those values are secrets, the
 * platform's limits, and three functions — receive (verify and parse a request), deliver (send
 * one piece of a reply) and, optionally, authorize reads of a caller's jobs — plus, optionally, a
 * live side (replies streamed as they are written) and the target its sends are limited by. The registry lists
 * the definitions; config, API and worker read every channel through it, so adding a channel is
 * one folder and one registry line. Compare the Vercel Chat SDK's `Adapter`, kept smaller.
 */
export interface ChannelDefinition<Schema extends z.ZodObject = z.ZodObject, Type extends string = string> {
  /** The hook `type` that selects this channel. */
  readonly type: Type;
  /**
   * The keys of this channel's hooks besides `type` (credentials, API URL…). The config package
   * adds `type` and the keys every hook has (model, system, rateLimit). Strict: a misspelt key
   * stops start-up.
   */
  readonly config: Schema;
  readonly limits: ChannelLimits;
  /** The config values that are secrets, kept out of logs and error bodies. */
  secrets(config: z.output<Schema>): string[];
  /**
   * Verifies and parses one request. Throws an `AppError`: 401 (`invalid_signature` /
   * `invalid_token`) for bad credentials, 400 for a malformed body. May be async, for a channel
   * whose verification needs the network (Teams: the issuer's signing keys); a synchronous one
   * stays as it is.
   */
  receive(request: InboundRequest, config: z.output<Schema>): Inbound | Promise<Inbound>;
  /**
   * The content types a request may declare (none declared is read as JSON). Another is a 415.
   * @defaultValue `['application/json', 'application/*+json']`
   */
  readonly bodyTypes?: readonly string[];
  /**
   * When present, `GET /hooks/:name` is answered by it: a platform's subscription handshake
   * (WhatsApp's `hub.challenge`). Throws an `AppError` (403) when the handshake is refused.
   * Without it, a GET is a 405.
   */
  handshake?(query: URLSearchParams, config: z.output<Schema>): HttpAnswer;
  /**
   * Sends piece `part.index` of a reply. Throws `DeliveryError`: retryable for network errors,
   * 5xx and 429 (with the platform's Retry-After); final for other 4xx (with
   * `credentialsRefused` for 401/403 or the platform's invalid-auth answers).
   */
  deliver(part: OutboundPart, context: DeliveryContext<z.output<Schema>>): Promise<void>;
  /**
   * When present, callers may read their jobs at `GET /hooks/:name/jobs/:id` with the hook's
   * credentials; this throws a 401 unless the headers hold them.
   */
  authorizeJobRead?(headers: IncomingHttpHeaders, config: z.output<Schema>): void;
  /**
   * When present, replies can be shown while the model writes them (streaming, typing, rich
   * text), for hooks whose `stream` is on; `deliver` still sends non-streamed replies.
   */
  readonly live?: LiveChannel<z.output<Schema>>;
  /**
   * When present, sends to where a message's replies go are spaced out by a limiter all workers
   * share (see live/send-gate.ts), with the rules the hook's config sets for that target.
   */
  sendTarget?(message: InboundMessage, config: z.output<Schema>): SendTarget | null;
  /**
   * When present, checks the hook's credentials with the platform's cheapest authenticated call
   * (Slack `auth.test`, Telegram `getMe`…), at start-up and every `health.channelCheckMs`, so
   * `/status` reports `connected` from evidence. Never throws for the platform's answer.
   */
  checkCredentials?(context: DeliveryContext<z.output<Schema>>): Promise<CredentialCheck>;
  /**
   * When present, other hooks may deliver their replies through this one to a target their
   * config names (a mapped hook's `deliver: {hook: team-slack, channel: C123}`).
   */
  readonly target?: DeliveryTarget;
  /**
   * When present, this hook's replies go out through another hook: its name and the target
   * (templates unrendered), so the config can check at start-up that the hook exists and takes
   * such a target. `path` is where the config names them, under the hook's own key.
   */
  /**
   * When present, the files its messages carry (`message.media`) can be fetched: this says where
   * each one is (a platform call may be needed, as Telegram's getFile). Without it, a file is
   * answered as one the bot cannot read.
   */
  readonly media?: MediaSource<z.output<Schema>>;
  /**
   * When present, a tool call the hook's `approve` lists is asked about with Approve / Deny
   * buttons in the chat, and `receive` turns a click into `{kind: 'click'}` (see approvals/).
   */
  readonly approvals?: ApprovalSide<z.output<Schema>>;
  deliversThrough?(config: z.output<Schema>): { hook: string; target: Record<string, string | number>; path: string[] } | null;
}

/** A channel's buttons. Each function calls the platform with the hook's credentials. */
export interface ApprovalSide<Config> {
  /** Whether a hook's config lets the channel ask (Mattermost: its `actionUrl`); without it, as a channel without buttons. Default: yes. */
  offered?(config: Config): boolean;
  /** Posts the question with Approve / Deny buttons where the message's reply goes; returns the posted message. */
  ask(question: ApprovalQuestion, context: DeliveryContext<Config>): Promise<PromptRef>;
  /**
   * Answers a click at once: a decision acknowledged (the worker edits the question when it takes
   * the job up, with its send limiter), or a refusal only the clicker sees. Returns the answer to
   * the click's own request.
   */
  answer(
    click: ApprovalClick,
    outcome: ApprovalOutcome & { kind: 'decided' | 'refused' },
    context: DeliveryContext<Config>,
  ): Promise<HttpAnswer>;
  /** Edits the question once it is over — who decided what, or that its wait ran out — leaving no buttons. */
  settle(prompt: PromptRef, outcome: SettledOutcome, context: DeliveryContext<Config>): Promise<void>;
}

/** How a channel finds a file its messages carry (Telegram's getFile, Slack's url_private…). */
export interface MediaSource<Config> {
  locate(ref: MediaRef, context: DeliveryContext<Config>): Promise<MediaLocation>;
}

/** What a channel needs to deliver to a target another hook named, rather than to a message's sender. */
export interface DeliveryTarget {
  /** The target's keys, as the config names them (values rendered): checked at delivery. */
  readonly schema: z.ZodObject;
  /** The `replyTo` the channel's `deliver` reads, from a target `schema` accepted. */
  replyTo(target: Record<string, unknown>): InboundMessage['replyTo'];
}

export interface ChannelLimits {
  /** The longest text one message may hold; a longer reply continues in further messages. `Infinity`: whole. */
  textLength: number;
}

/** What the API hands a channel: the raw bytes (signatures are over them) and the headers. */
export interface InboundRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** Unix milliseconds, for timestamp checks. */
  now: number;
}

/** How the API must answer the platform right now. */
export type Inbound =
  /**
   * Queue `message`, then answer with `ack(jobId, duplicate)` (`duplicate`: the platform sent it
   * before and nothing new was queued). With `waitMs`, the API first holds the request up to that
   * long for the reply, and answers with the job once it is over.
   */
  | {
      kind: 'message';
      message: InboundMessage;
      ack: (jobId: string, duplicate: boolean) => HttpAnswer;
      waitMs?: number;
      /** The answer when the hook's access rules drop the message (nothing queued); without it, `ack('', false)`. */
      ignored?: () => HttpAnswer;
    }
  /**
   * Queue each of `messages` in order (a platform that batches, as WhatsApp does), then answer
   * with `ack()`. A retried batch is safe: every message has its own dedupe key.
   */
  | { kind: 'messages'; messages: InboundMessage[]; ack: () => HttpAnswer }
  /** Answer at once, queue nothing (url_verification, PING, ignored bot messages…). */
  | { kind: 'answer'; answer: HttpAnswer }
  /**
   * A click on an approval's buttons (a channel with `approvals`): the API records the decision
   * once, if the clicker may make it, and answers with what `approvals.answer` returns.
   * `jobId` is filled in by the hook from `jobRef`.
   */
  | { kind: 'click'; click: ApprovalClick };

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** One piece of a reply, and the message it answers. */
export interface OutboundPart {
  message: InboundMessage;
  text: string;
  /** 0 for the first piece. */
  index: number;
  meta: DeliveryMeta;
}

export interface DeliveryMeta {
  jobId: string;
  hook: string;
  model: string;
  /** Unix seconds when the reply was generated. */
  created: number;
}

export interface DeliveryContext<Config> {
  /** The hook's name, for error messages (never a secret). */
  hook: string;
  config: Config;
  /** The hook's own keep-alive pool. */
  http: DeliveryClient;
}

/** Identity at run time, types at compile time: a definition's functions see its own config type. */
export function defineChannel<Schema extends z.ZodObject, const Type extends string>(
  definition: ChannelDefinition<Schema, Type>,
): ChannelDefinition<Schema, Type> {
  return definition;
}
