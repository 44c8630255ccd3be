import type { ServerResponse } from 'node:http';
import {
  type APIAttachment,
  type APIMessage,
  MessageType,
  type RESTError,
  RESTJSONErrorCodes,
  type RESTRateLimit,
} from 'discord-api-types/v10';
import { type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { discordMessage } from './discord.js';
import { FakeRateLimit, type FakeRule } from './fake-rate-limit.js';

/**
 * A local Discord API (`<url>/api/v10`) for interaction responses, as documented: the deferred
 * response edited at `PATCH /webhooks/{app}/{token}/messages/@original`, follow-ups posted with
 * `?wait=true` and edited or deleted by id, channel messages with the bot token; `content` up to
 * 2,000 characters; an interaction token valid for fifteen minutes (then 401, code 50027); and
 * each webhook's (or channel's) rate-limit bucket, 5 per 5 s, reported in `X-RateLimit-*` headers
 * and enforced with 429 + `retry_after` (https://discord.com/developers/docs/topics/rate-limits).
 * Bodies are JSON (`Content-Type: application/json`; https://discord.com/developers/docs/reference#http-api):
 * anything else reads as no content, and a message with no content is refused (50006), as
 * Discord does. Answers are typed with discord-api-types: the whole `APIMessage`, `RESTError`
 * (`{code, message, errors?}`) and `RESTRateLimit`. A channel message created with a `nonce` and
 * `enforce_nonce: true` whose nonce the bot used in the last few minutes is answered with that
 * message, and no new one is created (Create Message, https://discord.com/developers/docs/resources/message#create-message:
 * "If true and nonce is present, it will be checked for uniqueness in the past few minutes. If
 * another message was created by the same author with the same nonce, that message will be
 * returned and no new message will be created"; the docs give no figure, the fake keeps five
 * minutes). A nonce over 25 characters is refused. Message components
 * (https://discord.com/developers/docs/components/reference): `components` are kept with the
 * message — action rows (type 1) of up to five buttons (type 2) with a `custom_id` of up to 100
 * characters, a `label` of up to 80 and a style 1–4 (else 400, Invalid Form Body); an edit with
 * `components` replaces them (`[]` removes the buttons), one without leaves them, as the Edit
 * Webhook Message docs say of fields not given.
 */
export interface FakeDiscordOptions {
  applicationId: string;
  /** The bot token channel messages need; without it they are refused. */
  botToken?: string;
  /** Scaled down in tests. @defaultValue 5 per 5 s per bucket */
  limit?: FakeRule;
}

export interface DiscordPost {
  id: string;
  content: string;
  /** Its message components (button rows), as sent. */
  components?: unknown[];
}

export interface DiscordCall {
  method: string;
  path: string;
  status: number;
}

export interface FakeDiscord {
  apiUrl: string;
  server: LocalServer;
  calls: DiscordCall[];
  /** Registers an interaction (as Discord does when it sends one); `expired` makes its token invalid already. */
  interaction(token: string, options?: { expired?: boolean }): void;
  /** What an interaction shows: the original response, then its follow-ups. */
  responses(token: string): DiscordPost[];
  /** Messages the bot posted in a channel. */
  channel(channelId: string): DiscordPost[];
  /**
   * A file a user gave a command's attachment option: the attachment object for the interaction's
   * `data.resolved.attachments`, its `url` served by this server as Discord's CDN serves one (no
   * credentials; the URL carries its signature, `ex`/`is`/`hm`).
   */
  addAttachment(bytes: Buffer, filename: string, contentType: string): APIAttachment;
  /** Attachment downloads served. */
  readonly attachmentDownloads: number;
  readonly refused: number;
  close(): Promise<void>;
}

const LIMIT = 2000;
const NONCE_MS = 5 * 60_000;
const NONCE_LENGTH = 25;

export async function startFakeDiscord(options: FakeDiscordOptions): Promise<FakeDiscord> {
  const limit = options.limit ?? { count: 5, perMs: 5000 };
  const rate = new FakeRateLimit();
  const interactions = new Map<string, { expired: boolean; posts: DiscordPost[]; originalId: string }>();
  const channels = new Map<string, DiscordPost[]>();
  const calls: DiscordCall[] = [];
  /** Channel messages by the nonce they were created with (the bot is the only author here). */
  const nonces = new Map<string, { post: DiscordPost; until: number }>();
  let nextId = 1_329_481_300_000_000_000n;
  const attachments = new Map<string, Buffer>();
  let attachmentDownloads = 0;

  const answer = (
    res: ServerResponse,
    call: DiscordCall,
    status: number,
    body: APIMessage | RESTError | RESTRateLimit | null,
    headers: Record<string, string> = {},
  ) => {
    call.status = status;
    if (status === 204) res.writeHead(204, headers).end();
    else sendJson(res, status, body, headers);
  };

  const server = await startLocalServer((req: RecordedRequest, res) => {
    const file = req.method === 'GET' ? attachments.get(req.url.replace(/\?.*$/, '')) : undefined;
    if (file) {
      attachmentDownloads++;
      return void res.writeHead(200, { 'content-length': String(file.length) }).end(file);
    }
    const path = req.url.replace(/^\/api\/v10/, '').replace(/\?.*$/, '');
    const call: DiscordCall = { method: req.method, path, status: 0 };
    calls.push(call);
    const webhook = /^\/webhooks\/([^/]+)\/([^/]+)(?:\/messages\/([^/]+))?$/.exec(path);
    const channel = /^\/channels\/([^/]+)\/messages(?:\/([^/]+))?$/.exec(path);
    let posts: DiscordPost[];
    let id: string | undefined;
    let originalId: string | undefined;
    let bucket: string;
    if (webhook && webhook[1] === options.applicationId) {
      const interaction = interactions.get(decodeURIComponent(webhook[2]!));
      if (!interaction || interaction.expired) {
        return answer(res, call, 401, { message: 'Invalid Webhook Token', code: RESTJSONErrorCodes.InvalidWebhookToken });
      }
      posts = interaction.posts;
      // The original response is `@original` in paths, and has a message id of its own.
      originalId = interaction.originalId;
      id = webhook[3] === originalId ? '@original' : webhook[3];
      bucket = `webhook:${webhook[2]}`;
    } else if (channel) {
      if (!options.botToken || req.headers.authorization !== `Bot ${options.botToken}`) {
        return answer(res, call, 401, { message: '401: Unauthorized', code: 0 });
      }
      const channelId = channel[1]!;
      posts = channels.get(channelId) ?? [];
      channels.set(channelId, posts);
      id = channel[2];
      bucket = `channel:${channelId}`;
    } else {
      return answer(res, call, 404, { message: '404: Not Found', code: 0 });
    }

    const waitMs = rate.check(bucket, [limit]);
    const headers = bucketHeaders(bucket, rate.usage(bucket, limit), limit);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs) / 1000;
      return answer(
        res,
        call,
        429,
        { message: 'You are being rate limited.', retry_after: seconds, global: false },
        {
          ...headers,
          'retry-after': String(Math.ceil(seconds)),
          'x-ratelimit-reset-after': String(seconds),
          // "user": this bucket's limit, not the global or a shared one.
          'x-ratelimit-scope': 'user',
        },
      );
    }
    const json = String(req.headers['content-type'] ?? '').startsWith('application/json') ? req.json : undefined;
    const content = String((json as { content?: unknown } | undefined)?.content ?? '');
    if (req.method !== 'DELETE' && content.trim() === '') {
      return answer(
        res,
        call,
        400,
        { message: 'Cannot send an empty message', code: RESTJSONErrorCodes.CannotSendAnEmptyMessage },
        headers,
      );
    }
    if (req.method !== 'DELETE' && content.length > LIMIT) {
      return answer(
        res,
        call,
        400,
        {
          message: 'Invalid Form Body',
          code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
          errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${LIMIT} or fewer in length.` }] } },
        },
        headers,
      );
    }
    const components = (json as { components?: unknown } | undefined)?.components;
    if (req.method !== 'DELETE' && components !== undefined && !validComponents(components)) {
      return answer(res, call, 400, invalidFormBody('components', 'COMPONENT_INVALID', 'Invalid component.'), headers);
    }
    const target = id === undefined ? undefined : posts.find((post) => post.id === id);
    const channelId = channel?.[1] ?? '900000000000000002';
    const { nonce, enforce_nonce } = (json ?? {}) as { nonce?: unknown; enforce_nonce?: unknown };
    if (channel && req.method === 'POST' && typeof nonce === 'string' && nonce.length > NONCE_LENGTH) {
      const tooLong = `Must be ${NONCE_LENGTH} or fewer in length.`;
      return answer(res, call, 400, invalidFormBody('nonce', 'BASE_TYPE_MAX_LENGTH', tooLong), headers);
    }
    const enforced = channel && enforce_nonce === true && typeof nonce === 'string' ? nonce : undefined;
    const earlier = enforced === undefined ? undefined : nonces.get(enforced);
    if (req.method === 'POST' && id === undefined && earlier && earlier.until > Date.now() && posts.includes(earlier.post)) {
      const again = { ...sentBy(earlier.post.id, channelId, true), nonce: enforced };
      return answer(res, call, 200, discordMessage(earlier.post.content, again), headers);
    }
    if (req.method === 'POST' && id === undefined) {
      const post: DiscordPost = {
        id: String(++nextId),
        content,
        ...(Array.isArray(components) && components.length ? { components } : {}),
      };
      posts.push(post);
      if (enforced !== undefined) nonces.set(enforced, { post, until: Date.now() + NONCE_MS });
      const echo = channel && (typeof nonce === 'string' || typeof nonce === 'number') ? { nonce } : {};
      return answer(
        res,
        call,
        200,
        discordMessage(content, { ...sentBy(post.id, channelId, Boolean(channel)), ...echo }),
        headers,
      );
    }
    if (!target) return answer(res, call, 404, { message: 'Unknown Message', code: RESTJSONErrorCodes.UnknownMessage }, headers);
    if (req.method === 'PATCH') {
      target.content = content;
      if (Array.isArray(components) && components.length) target.components = components;
      else if (components !== undefined) delete target.components;
      const messageId = target.id === '@original' ? originalId! : target.id;
      const edited = { ...sentBy(messageId, channelId, Boolean(channel)), edited_timestamp: new Date().toISOString() };
      return answer(res, call, 200, discordMessage(content, edited), headers);
    }
    if (req.method === 'DELETE') {
      posts.splice(posts.indexOf(target), 1);
      return answer(res, call, 204, null, headers);
    }
    return answer(res, call, 405, { message: '405: Method Not Allowed', code: 0 });
  });

  return {
    apiUrl: `${server.url}/api/v10`,
    server,
    calls,
    interaction(token, { expired = false } = {}) {
      // The deferred response exists from the start, showing "thinking…" (empty content).
      interactions.set(token, { expired, posts: [{ id: '@original', content: '' }], originalId: String(++nextId) });
    },
    responses: (token) => [...(interactions.get(token)?.posts ?? [])],
    channel: (channelId) => [...(channels.get(channelId) ?? [])],
    addAttachment(bytes, filename, contentType) {
      const id = String(++nextId);
      const path = `/attachments/900000000000000002/${id}/${encodeURIComponent(filename)}`;
      attachments.set(path, bytes);
      const url = `${server.url}${path}?ex=6790a0b0&is=678f4f30&hm=fake`;
      return { id, filename, content_type: contentType, size: bytes.length, url, proxy_url: url };
    },
    get attachmentDownloads() {
      return attachmentDownloads;
    },
    get refused() {
      return rate.refused;
    },
    close: () => server.close(),
  };
}

/**
 * Who a message is from: a channel message is the bot's own (a default message, no webhook); an
 * interaction's response and follow-ups are the application's webhook messages.
 */
function sentBy(id: string, channelId: string, byBot: boolean): Partial<APIMessage> {
  const message: Partial<APIMessage> = { id, channel_id: channelId };
  return byBot ? { ...message, type: MessageType.Default, webhook_id: undefined } : message;
}

function bucketHeaders(
  bucket: string,
  usage: { remaining: number; resetAfterMs: number },
  limit: FakeRule,
): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit.count),
    'x-ratelimit-remaining': String(usage.remaining),
    'x-ratelimit-reset-after': String(Math.ceil(usage.resetAfterMs) / 1000),
    'x-ratelimit-bucket': Buffer.from(bucket).toString('hex').slice(0, 16),
  };
}

/** Action rows of buttons within the documented limits (https://discord.com/developers/docs/components/reference#button). */
function validComponents(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > 5) return false;
  return value.every((row: { type?: unknown; components?: unknown }) => {
    if (row?.type !== 1 || !Array.isArray(row.components) || row.components.length === 0 || row.components.length > 5)
      return false;
    return row.components.every((button: { type?: unknown; style?: unknown; label?: unknown; custom_id?: unknown }) => {
      if (button?.type !== 2) return false;
      if (typeof button.style !== 'number' || button.style < 1 || button.style > 4) return false;
      if (typeof button.label !== 'string' || button.label.length > 80) return false;
      return typeof button.custom_id === 'string' && button.custom_id.length >= 1 && button.custom_id.length <= 100;
    });
  });
}

/** Discord's answer to a field it refuses (code 50035, the field's errors under its name). */
function invalidFormBody(field: string, code: string, message: string): RESTError {
  return {
    message: 'Invalid Form Body',
    code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
    errors: { [field]: { _errors: [{ code, message }] } },
  };
}
