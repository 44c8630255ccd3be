import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { InboundMessage, MediaRef } from '@switchboard/protocol';
import {
  type ApprovalClick,
  type ApprovalOutcome,
  type ApprovalQuestion,
  jobIdOf,
  jobRefOf,
  type PromptRef,
  type SettledOutcome,
} from './approvals/approval.js';
import type { CredentialCheck } from './credential-check.js';
import type { ChannelDefinition, DeliveryMeta, HttpAnswer, Inbound, InboundRequest } from './definition.js';
import { DeliveryClient } from './http.js';
import type { FinalReply, LiveContext, LiveJob, LiveReply } from './live/live-reply.js';
import { type Polite, politeFor, politely, type SendGate } from './live/send-gate.js';
import { splitMarkdown } from './live/split-markdown.js';
import type { MediaLocation } from './media/media-location.js';
import { type ChannelConfig, findChannel } from './registry.js';

/**
 * A configured hook bound to its channel: what the API (receiving) and the worker (delivering)
 * hold, one per hook, built at start-up. Each hook owns a keep-alive pool; `close()` it on
 * shutdown.
 */
export interface Hook<Config extends ChannelConfig = ChannelConfig> {
  /** The hook's name: its path segment under `/hooks/`. */
  readonly name: string;
  readonly config: Config;
  readonly channel: ChannelDefinition;
  /** Verifies and parses a request to this hook (see `ChannelDefinition.receive`). */
  receive(request: InboundRequest): Promise<Inbound>;
  /** The content types the hook reads (see `ChannelDefinition.bodyTypes`). */
  readonly bodyTypes: readonly string[];
  /** Set when the channel answers `GET /hooks/:name` (see `ChannelDefinition.handshake`). */
  readonly handshake: ((query: URLSearchParams) => HttpAnswer) | undefined;
  /**
   * The reply cut into the pieces the platform accepts, Markdown-aware (a code block cut in two is
   * closed and reopened), the same for whole and streamed replies; each piece is Markdown that
   * the channel renders for its platform.
   */
  split(text: string): string[];
  /** Sends piece `index` of a reply (see `ChannelDefinition.deliver`), taking a turn of the shared limiter. */
  deliver(message: InboundMessage, text: string, index: number, meta: DeliveryMeta, signal?: AbortSignal): Promise<void>;
  /** Set when the channel lets callers read their jobs: throws 401 unless the headers hold the credentials. */
  readonly authorizeJobRead: ((headers: IncomingHttpHeaders) => void) | undefined;
  /** Set when replies stream (the channel is live and the hook's `stream` is on): opens one reply. */
  readonly openLive: ((job: LiveJob) => LiveReply) | undefined;
  /** The shortest time between two updates of a streamed reply, ms. */
  readonly streamIntervalMs: number;
  /** Set when the channel can check the hook's credentials with its platform. */
  readonly checkCredentials: (() => Promise<CredentialCheck>) | undefined;
  /** Set when the channel can fetch the files its messages carry: where one is (see `ChannelDefinition.media`). */
  readonly locateMedia: ((ref: MediaRef) => Promise<MediaLocation>) | undefined;
  /** Set when the channel asks for approvals with buttons in the chat (see `ChannelDefinition.approvals`). */
  readonly approvals: HookApprovals | undefined;
  close(): Promise<void>;
}

/** A hook's approval buttons: the channel's `approvals`, bound to the hook (its credentials, its job ids, its send limiter). */
export interface HookApprovals {
  /** Posts the question for the job's call (taking a turn of the shared limiter); returns the posted message. */
  ask(question: Omit<ApprovalQuestion, 'jobRef'> & { jobId: string }, signal?: AbortSignal): Promise<PromptRef>;
  answer(click: ApprovalClick, outcome: ApprovalOutcome & { kind: 'decided' | 'refused' }): Promise<HttpAnswer>;
  /** Edits the question of the job's message once it is over (taking a turn of the shared limiter). */
  settle(prompt: PromptRef, outcome: SettledOutcome, message: InboundMessage, signal?: AbortSignal): Promise<void>;
}

/** What a channel reads unless it says otherwise. */
export const JSON_BODY_TYPES = ['application/json', 'application/*+json'] as const;

export interface HookOptions {
  /** The limiter all workers share; without it (the API, unit tests) sends are not spaced. */
  gate?: SendGate | undefined;
  /** Told of every call that delivers a reply (not credential checks): the platform (channel type) and the status, null when none came. */
  onPlatformCall?: ((platform: string, status: number | null) => void) | undefined;
}

export function createHook<Config extends ChannelConfig>(name: string, config: Config, options: HookOptions = {}): Hook<Config> {
  const channel = findChannel(config.type);
  // The config package only accepts registered types, so this is a programming error.
  if (!channel) throw new Error(`Hook '${name}': no channel has the type '${config.type}'`);
  const http = new DeliveryClient();
  const onCall = options.onPlatformCall;
  const sends = onCall ? http.observed((status) => onCall(channel.type, status)) : http;
  const { textLength } = channel.limits;
  const authorize = channel.authorizeJobRead;
  const check = channel.checkCredentials;
  const handshake = channel.handshake;
  const media = channel.media;
  const approvals = channel.approvals && (channel.approvals.offered?.(config) ?? true) ? channel.approvals : undefined;
  const live = channel.live && !('stream' in config && config.stream === false) ? channel.live : undefined;
  const liveLength = Math.min(live?.textLength ?? textLength, textLength);
  const pieceLength = live ? liveLength : textLength;
  const split = (text: string) => splitMarkdown(text, pieceLength);
  const polite = (message: InboundMessage, signal?: AbortSignal): Polite =>
    politeFor(options.gate, name, channel.sendTarget?.(message, config) ?? null, signal);
  const deliver = (message: InboundMessage, text: string, index: number, meta: DeliveryMeta, signal?: AbortSignal) =>
    politely(polite(message, signal), () => channel.deliver({ message, text, index, meta }, { hook: name, config, http: sends }));
  return {
    name,
    config,
    channel,
    // A synchronous receive's throw becomes a rejection, so callers handle one shape.
    receive: async (request) => {
      const inbound = await channel.receive(request, config);
      if (inbound.kind !== 'click') return inbound;
      return { kind: 'click', click: { ...inbound.click, jobId: jobIdOf(name, inbound.click.jobRef) } };
    },
    bodyTypes: channel.bodyTypes ?? JSON_BODY_TYPES,
    handshake: handshake ? (query) => handshake(query, config) : undefined,
    split,
    deliver,
    authorizeJobRead: authorize ? (headers) => authorize(headers, config) : undefined,
    // Every field written out (no spread of `job`): one object shape for every message's context,
    // and the compiler names any field of LiveContext left out.
    openLive: live
      ? (job) =>
          live.open({
            message: job.message,
            jobId: job.jobId,
            receivedAt: job.receivedAt,
            earlier: job.earlier,
            delivered: job.delivered,
            rerun: job.rerun,
            save: job.save,
            feed: job.feed,
            signal: job.signal,
            log: job.log,
            hook: name,
            config,
            http: sends,
            split,
            polite: polite(job.message, job.signal),
            deliver: (text: string, index: number, reply: FinalReply) =>
              channel.deliver(
                {
                  message: job.message,
                  text,
                  index,
                  meta: { jobId: job.jobId, hook: name, model: reply.model, created: reply.created },
                },
                { hook: name, config, http: sends },
              ),
          } satisfies Record<keyof LiveContext<Config>, unknown>)
      : undefined,
    streamIntervalMs: 'streamIntervalMs' in config ? config.streamIntervalMs : 1000,
    checkCredentials: check ? () => check({ hook: name, config, http }) : undefined,
    locateMedia: media ? (ref) => media.locate(ref, { hook: name, config, http }) : undefined,
    approvals: approvals
      ? {
          ask: ({ jobId, ...question }, signal) =>
            politely(polite(question.message, signal), () =>
              approvals.ask({ ...question, jobRef: jobRefOf(name, jobId) }, { hook: name, config, http: sends }),
            ),
          answer: (click, outcome) => approvals.answer(click, outcome, { hook: name, config, http: sends }),
          settle: (prompt, outcome, message, signal) =>
            politely(polite(message, signal), () => approvals.settle(prompt, outcome, { hook: name, config, http: sends })),
        }
      : undefined,
    close: () => http.close(),
  };
}

/** One hook per configured entry. */
export function createHooks<Config extends ChannelConfig>(
  hooks: Record<string, Config>,
  options: HookOptions = {},
): Map<string, Hook<Config>> {
  return new Map(Object.entries(hooks).map(([name, config]) => [name, createHook(name, config, options)]));
}

/**
 * The credential checks of the hooks whose channel has one, in the shape `ChannelChecks` of
 * @switchboard/state runs. The fingerprint changes with the hook's configuration, so new
 * credentials are checked at once rather than after the interval.
 */
export function credentialChecks(hooks: Map<string, Hook<ChannelConfig>>) {
  return [...hooks.values()].flatMap((hook) => {
    const check = hook.checkCredentials;
    if (!check) return [];
    const fingerprint = createHash('sha256').update(JSON.stringify(hook.config)).digest('hex').slice(0, 16);
    return [{ hook: hook.name, fingerprint, check }];
  });
}

/** Closes every hook's delivery pool. */
export async function closeHooks(hooks: Map<string, Hook<ChannelConfig>>): Promise<void> {
  await Promise.allSettled([...hooks.values()].map((hook) => hook.close()));
}
