import { createHmac } from 'node:crypto';
import type { GenericMessageEvent } from '@slack/types';
import type { AuthTestResponse, ChatPostMessageResponse } from '@slack/web-api';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * Slack as the Events API and the Web API document it: signed event callbacks in, and the
 * answers `chat.postMessage` and `auth.test` give. Signatures use real HMAC keys, never a stub of
 * our verifier. Bodies are typed with Slack's own packages (`@slack/types` for events,
 * `@slack/web-api`'s response types), so a field Slack does not send fails to compile.
 */

/**
 * The Events API envelope, as bolt-js types it (`EnvelopedEvent`, src/types/events/index.ts in
 * slackapi/bolt-js; @slack/types has the events but not the envelope) and as the "callback
 * field" example of https://docs.slack.dev/apis/events-api/#callback-field shows it.
 */
export interface SlackEventCallback<Event> {
  token: string;
  team_id: string;
  enterprise_id?: string;
  context_team_id?: string;
  context_enterprise_id?: string | null;
  api_app_id: string;
  event: Event;
  type: 'event_callback';
  event_id: string;
  event_time: number;
  event_context?: string;
  is_ext_shared_channel?: boolean;
  authorizations?: {
    enterprise_id: string | null;
    team_id: string | null;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install?: boolean;
  }[];
}

/**
 * An `event_callback` envelope around a channel `message` event; override either level per test
 * (overrides are loose on purpose: tests send malformed events too). The values follow the
 * documented examples: the envelope of https://docs.slack.dev/apis/events-api/#callback-field
 * (`token: "XXYYZZ"`, `event_context`, one authorization) and the `message` event of
 * https://docs.slack.dev/reference/events/message (channel, user, text, ts; `channel_type` and
 * `event_ts` as https://docs.slack.dev/reference/events/message.channels shows them).
 */
export function slackMessageEvent(event: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  const message = {
    type: 'message',
    subtype: undefined,
    channel: 'C0123',
    channel_type: 'channel',
    user: 'U0456',
    text: 'What is a monad?',
    ts: '1736942400.000100',
    event_ts: '1736942400.000100',
    client_msg_id: '5b6a3c1e-1c3d-4f7e-9a0b-6c2d1e0f9a8b',
    team: 'T0001',
    blocks: [],
  } satisfies GenericMessageEvent;
  const callback = {
    token: 'XXYYZZ',
    team_id: 'T0001',
    context_team_id: 'T0001',
    context_enterprise_id: null,
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: 'Ev0PV52K21',
    event_time: 1_736_942_400,
    event_context: '4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMDAwMSIsImFpZCI6IkEwMDAxIiwiY2lkIjoiQzAxMjMifQ',
    is_ext_shared_channel: false,
    authorizations: [{ enterprise_id: null, team_id: 'T0001', user_id: 'U0BOT', is_bot: true, is_enterprise_install: false }],
    event: message,
  } satisfies SlackEventCallback<GenericMessageEvent>;
  return { ...callback, event: { ...message, ...event }, ...envelope };
}

/** `X-Slack-Signature`: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/** The two headers Slack signs a request with, for a request signed at `signedAt` (Unix ms). */
export function slackSignedHeaders(secret: string, rawBody: Buffer | string, signedAt: number): Record<string, string> {
  const timestamp = String(Math.floor(signedAt / 1000));
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(secret, timestamp, rawBody) };
}

/** A request as Slack sends it, signed at `signedAt` (Unix ms) and received at `now`. */
export function slackRequest(secret: string, body: unknown, options: { now?: number; signedAt?: number } = {}): SignedRequest {
  const now = options.now ?? SAMPLE_NOW;
  const request = jsonRequest(body, {}, now);
  Object.assign(request.headers, slackSignedHeaders(secret, request.rawBody, options.signedAt ?? now));
  return request;
}

/**
 * What `chat.postMessage` answers when the message was posted (HTTP 200): `ok, channel, ts` and
 * the posted `message`, as the example of https://docs.slack.dev/reference/methods/chat.postMessage
 * shows (a bot's message carries `bot_id`, `app_id`, `user`, `team` and `bot_profile`).
 */
export function slackPostedMessage(channel: string, text: string, ts = '1736942401.000200', threadTs?: string) {
  return {
    ok: true,
    channel,
    ts,
    message: {
      type: 'message',
      text,
      user: 'U0BOT',
      bot_id: 'B0123',
      app_id: 'A0001',
      team: 'T0001',
      bot_profile: {
        id: 'B0123',
        app_id: 'A0001',
        name: 'Switchboard',
        team_id: 'T0001',
        deleted: false,
        updated: 1_736_900_000,
      },
      ts,
      ...(threadTs ? { thread_ts: threadTs, parent_user_id: 'U0456' } : {}),
      blocks: [],
    },
  } satisfies ChatPostMessageResponse;
}

/**
 * What `auth.test` answers (HTTP 200 either way): the bot's identity for a valid token, or
 * `{ok: false, error}` (`invalid_auth`, `token_revoked`…) for one Slack refuses
 * (https://docs.slack.dev/reference/methods/auth.test).
 */
export function slackAuthTest(error?: string): AuthTestResponse {
  if (error) return { ok: false, error };
  return {
    ok: true,
    url: 'https://acme.slack.com/',
    team: 'Acme',
    user: 'switchboard',
    team_id: 'T0001',
    user_id: 'U0BOT',
    bot_id: 'B0123',
    is_enterprise_install: false,
  } satisfies AuthTestResponse;
}

/**
 * A `block_actions` interactivity payload for a click on one of a message's buttons, shaped like
 * the example of https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
 * (type, team, user, api_app_id, token, container of type `message` with `message_ts`,
 * `channel_id`, `is_ephemeral`, `thread_ts` in a thread; trigger_id, channel, message,
 * response_url, and the clicked button in `actions` with its `action_id`, `block_id`, `text`,
 * `value`, `type` and `action_ts`) — bolt-js's `BlockAction<ButtonAction>` holds the same fields.
 * The button is taken from the message's own blocks: a test clicks what the bot posted.
 */
export function slackButtonClick(
  message: { channel: string; ts: string; thread_ts?: string; text?: string; blocks?: unknown[] },
  actionId: string,
  user: { id: string; username: string } = { id: 'U0456', username: 'ada' },
) {
  type Button = { type: string; action_id?: string; text?: unknown; value?: string };
  const blocks = (message.blocks ?? []) as { type: string; block_id?: string; elements?: Button[] }[];
  const block = blocks.find((b) => b.type === 'actions' && b.elements?.some((e) => e.action_id === actionId));
  const button = block?.elements?.find((e) => e.action_id === actionId);
  if (!block || !button) throw new Error(`the message ${message.ts} has no button '${actionId}'`);
  return {
    type: 'block_actions',
    team: { id: 'T0001', domain: 'acme' },
    user: { ...user, name: user.username, team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'XXYYZZ',
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
      ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    },
    trigger_id: '12321423423.333649436676.d8c1bb837935619ccad0f624c448ffb3',
    channel: { id: message.channel, name: 'general' },
    message: {
      type: 'message',
      user: 'U0BOT',
      bot_id: 'B0123',
      ts: message.ts,
      text: message.text ?? '',
      blocks,
      ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    },
    response_url: 'https://hooks.slack.com/actions/A0001/1232321423432/D09sSasdasdAS9091209',
    actions: [
      {
        type: button.type,
        action_id: actionId,
        block_id: block.block_id ?? 'b1',
        text: button.text,
        ...(button.value !== undefined ? { value: button.value } : {}),
        action_ts: '1736942600.840180',
      },
    ],
  };
}

/** An interactivity request's body as Slack sends it: form-encoded, the payload JSON in one `payload` field. */
export function slackInteractionBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
