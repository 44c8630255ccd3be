import type { ServerResponse } from 'node:http';
import type {
  AssistantThreadsSetStatusResponse,
  ChatAppendStreamResponse,
  ChatDeleteResponse,
  ChatPostEphemeralResponse,
  ChatPostMessageResponse,
  ChatStartStreamResponse,
  ChatStopStreamResponse,
  ChatUpdateResponse,
  WebAPICallResult,
} from '@slack/web-api';
import { type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { FakeRateLimit, type FakeRule } from './fake-rate-limit.js';
import { slackPostedMessage } from './slack.js';

/**
 * A local Slack Web API (`<url>/api/<method>`) that enforces what the documentation says
 * (https://docs.slack.dev/apis/web-api/): arguments as a form (`application/x-www-form-urlencoded`,
 * the token as `token=` or a Bearer header), as JSON (`application/json`, the token only as a
 * Bearer header) or in the query string; `text` up to 40,000 characters and streamed Markdown up
 * to 12,000 per call; native streams (`chat.startStream` needs a recipient in a channel,
 * `appendStream`/`stopStream` only while streaming); `chat.update` only of a message that is not
 * streaming; and about one message a second per channel — answered with HTTP 429 and
 * `Retry-After` (whole seconds, https://docs.slack.dev/apis/web-api/rate-limits). Every other
 * refusal is HTTP 200 `{ok: false, error}`. Answers are typed with `@slack/web-api`'s response
 * types and carry what Slack's examples carry (`chat.postMessage`: ok, channel, ts, message).
 * Block Kit: `blocks` (JSON, or a JSON string in a form) are kept with the message; an `actions`
 * block's buttons are checked against the button element's documented limits
 * (https://docs.slack.dev/reference/block-kit/block-elements/button-element: plain_text `text` up to
 * 75 characters, `action_id` up to 255, `value` up to 2,000; up to 25 elements), else
 * `invalid_blocks`. `chat.update` with `blocks` replaces them; with `text` and no `blocks` the blocks
 * are removed (https://docs.slack.dev/reference/methods/chat.update). `chat.postEphemeral` needs
 * `channel`, `user` and `text` or `blocks`, and answers `{ok, message_ts}`
 * (https://docs.slack.dev/reference/methods/chat.postEphemeral); what it posts only that user sees
 * (`ephemerals`).
 */
export interface FakeSlackOptions {
  botToken: string;
  /** Scaled down in tests. @defaultValue 1 per 1 s per channel */
  limit?: FakeRule;
  /** false: the workspace refuses native streaming (`chat.startStream` → feature_not_enabled). @defaultValue true */
  streaming?: boolean;
}

export interface SlackMessage {
  ts: string;
  channel: string;
  thread_ts?: string;
  /** mrkdwn for posted messages; the Markdown for streamed ones. */
  text: string;
  streaming: boolean;
  /** Its Block Kit blocks, as sent. */
  blocks?: unknown[];
}

/** A message only one user sees (chat.postEphemeral). */
export interface SlackEphemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** How the arguments came: a JSON body, a form body, or only the query string. */
  encoding: 'json' | 'form' | 'query';
  /** A JSON body without `charset=utf-8` in its Content-Type. */
  missingCharset: boolean;
  /** The `error` of the answer, or 'ratelimited' for a 429; null when ok. */
  error: string | null;
}

export interface FakeSlack {
  /** Give this as a hook's `apiUrl`. */
  apiUrl: string;
  server: LocalServer;
  calls: SlackCall[];
  /** The messages a thread shows now, oldest first. */
  thread(channel: string, threadTs: string): SlackMessage[];
  readonly refused: number;
  /**
   * A file a user shared, as the message event's `files[]` lists it
   * (docs.slack.dev/reference/objects/file-object): `url_private_download` serves the bytes only
   * with `Authorization: Bearer <bot token>`; without it Slack answers `302 Found` towards the
   * workspace's login page (what bolt-js#2585 and deno-slack-sdk#285 report: HTML, never the file).
   */
  addFile(bytes: Buffer, name: string, mimetype: string): SlackSharedFile;
  /** Downloads of files served with the bot token. */
  readonly downloads: number;
  /** What chat.postEphemeral showed, in order. */
  ephemerals: SlackEphemeral[];
  close(): Promise<void>;
}

/** The fields of Slack's file object a bot reads to fetch a shared file. */
export interface SlackSharedFile {
  id: string;
  name: string;
  mimetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
}

const COUNTED = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

/** Every answer is a `WebAPICallResult`; refusals are `{ok: false, error}` with HTTP 200. */
type SlackAnswer =
  | ChatPostMessageResponse
  | ChatUpdateResponse
  | ChatDeleteResponse
  | ChatStartStreamResponse
  | ChatAppendStreamResponse
  | ChatStopStreamResponse
  | AssistantThreadsSetStatusResponse
  | ChatPostEphemeralResponse
  | (WebAPICallResult & { ok: false; error: string });

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const limit = options.limit ?? { count: 1, perMs: 1000 };
  const rate = new FakeRateLimit();
  const messages: SlackMessage[] = [];
  const ephemerals: SlackEphemeral[] = [];
  const calls: SlackCall[] = [];
  let seq = 0;

  const reply = (res: ServerResponse, call: SlackCall, body: SlackAnswer) => {
    call.error = body.ok ? null : (body.error ?? 'unknown_error');
    // JSON without a charset still works, with a warning (https://docs.slack.dev/apis/web-api/#posting_json).
    const warned = call.missingCharset
      ? { warning: 'missing_charset', response_metadata: { ...body.response_metadata, warnings: ['missing_charset'] } }
      : {};
    sendJson(res, 200, { ...body, ...warned });
  };
  const refuse = (res: ServerResponse, call: SlackCall, error: string) => reply(res, call, { ok: false, error });

  const files = new Map<string, Buffer>();
  let downloads = 0;
  const server = await startLocalServer((req: RecordedRequest, res) => {
    const [path = '', query = ''] = req.url.split('?', 2);
    if (path.startsWith('/files-pri/') && req.method === 'GET') {
      const bytes = files.get(path.replace(/\/download\//, '/'));
      if (req.headers.authorization !== `Bearer ${options.botToken}`) {
        const location = `/?redir=${encodeURIComponent(path)}`;
        return void res.writeHead(302, { location, 'content-type': 'text/html' }).end(`<a href="${location}">Found</a>.`);
      }
      if (!bytes) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
      downloads++;
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) })
        .end(bytes);
    }
    const method = path.replace(/^\/api\//, '');
    const { args, encoding, token } = readArgs(req, query);
    const missingCharset = encoding === 'json' && !/charset=utf-8/i.test(String(req.headers['content-type']));
    const call: SlackCall = { method, args, encoding, missingCharset, error: null };
    calls.push(call);
    // https://docs.slack.dev/authentication/tokens: no token is `not_authed`, a wrong one `invalid_auth`.
    if (token === undefined) return refuse(res, call, 'not_authed');
    if (token !== options.botToken) return refuse(res, call, 'invalid_auth');
    const channel = String(args.channel ?? args.channel_id ?? '');
    if (COUNTED.has(method)) {
      const waitMs = rate.check(channel, [limit]);
      if (waitMs > 0) {
        call.error = 'ratelimited';
        return sendJson(
          res,
          429,
          { ok: false, error: 'ratelimited' },
          { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
        );
      }
    }
    if ('blocks' in args && !validBlocks(args.blocks)) return refuse(res, call, 'invalid_blocks');
    const blocks = Array.isArray(args.blocks) ? args.blocks : undefined;
    const markdown = markdownOf(args);
    const find = () => messages.find((m) => m.channel === channel && m.ts === args.ts);
    const threadOf = (message: SlackMessage) => message.thread_ts;
    switch (method) {
      case 'chat.postMessage': {
        if (!channel) return refuse(res, call, 'channel_not_found');
        const text = String(args.text ?? '');
        if (text.length > 40_000) return refuse(res, call, 'msg_too_long');
        if (!text && !blocks?.length) return refuse(res, call, 'no_text');
        const message = post(channel, args.thread_ts, text, false);
        if (blocks) message.blocks = blocks;
        return reply(res, call, slackPostedMessage(channel, text, message.ts, threadOf(message)));
      }
      case 'chat.update': {
        const message = find();
        if (!message) return refuse(res, call, 'message_not_found');
        if (message.streaming) return refuse(res, call, 'cant_update_message');
        const text = String(args.text ?? '');
        if (text.length > 40_000) return refuse(res, call, 'msg_too_long');
        message.text = text;
        if (blocks) message.blocks = blocks;
        else if (text) delete message.blocks;
        // https://docs.slack.dev/reference/methods/chat.update: ok, channel, ts, text, message.
        return reply(res, call, { ok: true, channel, ts: message.ts, text, message: { text, user: 'U0BOT', bot_id: 'B0123' } });
      }
      case 'chat.delete': {
        const message = find();
        if (!message) return refuse(res, call, 'message_not_found');
        messages.splice(messages.indexOf(message), 1);
        return reply(res, call, { ok: true, channel, ts: message.ts });
      }
      case 'chat.startStream': {
        if (options.streaming === false) return refuse(res, call, 'feature_not_enabled');
        if (channel.startsWith('C') && (!args.recipient_user_id || !args.recipient_team_id)) {
          return refuse(res, call, 'invalid_arguments');
        }
        if (markdown.length > 12_000) return refuse(res, call, 'msg_too_long');
        const message = post(channel, args.thread_ts, markdown, true);
        // https://docs.slack.dev/reference/methods/chat.startStream: ok, channel, ts.
        return reply(res, call, { ok: true, channel, ts: message.ts });
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const message = find();
        if (!message) return refuse(res, call, 'message_not_found');
        if (!message.streaming) return refuse(res, call, 'message_not_in_streaming_state');
        if (markdown.length > 12_000) return refuse(res, call, 'msg_too_long');
        message.text += markdown;
        if (method === 'chat.appendStream') return reply(res, call, { ok: true, channel, ts: message.ts });
        message.streaming = false;
        // https://docs.slack.dev/reference/methods/chat.stopStream: the stopped message comes back too.
        return reply(res, call, {
          ok: true,
          channel,
          ts: message.ts,
          message: {
            text: message.text,
            bot_id: 'B0123',
            ts: message.ts,
            ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
          },
        });
      }
      case 'assistant.threads.setStatus':
        return reply(res, call, { ok: true });
      case 'chat.postEphemeral': {
        if (!channel) return refuse(res, call, 'channel_not_found');
        if (typeof args.user !== 'string' || !args.user) return refuse(res, call, 'user_not_in_channel');
        const text = String(args.text ?? '');
        if (!text && !blocks?.length) return refuse(res, call, 'no_text');
        const thread = typeof args.thread_ts === 'string' && args.thread_ts !== '' ? { thread_ts: args.thread_ts } : {};
        ephemerals.push({ channel, user: args.user, text, ...thread });
        seq++;
        return reply(res, call, { ok: true, message_ts: `1736942500.${String(seq).padStart(6, '0')}` });
      }
      default:
        return refuse(res, call, 'unknown_method');
    }
  });

  function post(channel: string, threadTs: unknown, text: string, streaming: boolean): SlackMessage {
    seq++;
    const message: SlackMessage = {
      ts: `1736942500.${String(seq).padStart(6, '0')}`,
      channel,
      ...(typeof threadTs === 'string' && threadTs !== '' ? { thread_ts: threadTs } : {}),
      text,
      streaming,
    };
    messages.push(message);
    return message;
  }

  return {
    apiUrl: `${server.url}/api`,
    server,
    calls,
    thread: (channel, threadTs) => messages.filter((m) => m.channel === channel && m.thread_ts === threadTs),
    get refused() {
      return rate.refused;
    },
    addFile(bytes, name, mimetype) {
      const id = `F0${files.size + 100}`;
      const key = `/files-pri/T0123-${id}/${encodeURIComponent(name)}`;
      files.set(key, bytes);
      const base = server.url;
      return {
        id,
        name,
        mimetype,
        size: bytes.length,
        url_private: `${base}${key}`,
        url_private_download: `${base}/files-pri/T0123-${id}/download/${encodeURIComponent(name)}`,
      };
    },
    get downloads() {
      return downloads;
    },
    ephemerals,
    close: () => server.close(),
  };
}

/**
 * The arguments of a call and the token that came with it, read as the Web API reads them
 * (https://docs.slack.dev/apis/web-api/#posting_json): query-string arguments, then a form body
 * (`token=` allowed; structured arguments such as `chunks` are JSON strings) or a JSON body —
 * only with `Content-Type: application/json`, and then the token must be the Bearer header.
 */
function readArgs(req: RecordedRequest, query: string) {
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const args: Record<string, unknown> = Object.fromEntries(new URLSearchParams(query));
  let encoding: SlackCall['encoding'] = 'query';
  if (contentType.startsWith('application/json')) {
    encoding = 'json';
    if (req.json && typeof req.json === 'object') Object.assign(args, req.json);
    delete args.token;
  } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
    encoding = 'form';
    Object.assign(args, Object.fromEntries(new URLSearchParams(req.body)));
  }
  const token = bearer ?? (encoding === 'json' ? undefined : (args.token as string | undefined));
  delete args.token;
  for (const name of ['chunks', 'blocks']) {
    if (typeof args[name] !== 'string') continue;
    try {
      args[name] = JSON.parse(args[name]);
    } catch {
      args[name] = [];
    }
  }
  return { args, encoding, token };
}

/** The Markdown a streaming call carries: `markdown_text`, or `chunks` of type markdown_text. */
function markdownOf(args: Record<string, unknown>): string {
  if (typeof args.markdown_text === 'string') return args.markdown_text;
  if (!Array.isArray(args.chunks)) return '';
  return args.chunks
    .filter((chunk): chunk is { type: string; text: string } => chunk?.type === 'markdown_text' && typeof chunk.text === 'string')
    .map((chunk) => chunk.text)
    .join('');
}

/** Blocks as Slack takes them: an array of typed blocks; an `actions` block's buttons within the documented limits. */
function validBlocks(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > 50) return false;
  return value.every((block: { type?: unknown; elements?: unknown }) => {
    if (typeof block?.type !== 'string') return false;
    if (block.type !== 'actions') return true;
    if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 25) return false;
    return block.elements.every(
      (element: { type?: unknown; text?: { type?: unknown; text?: unknown }; action_id?: unknown; value?: unknown }) => {
        if (element?.type !== 'button') return typeof element?.type === 'string';
        const text = element.text;
        if (text?.type !== 'plain_text' || typeof text.text !== 'string' || text.text.length === 0 || text.text.length > 75)
          return false;
        if (element.action_id !== undefined && (typeof element.action_id !== 'string' || element.action_id.length > 255))
          return false;
        return element.value === undefined || (typeof element.value === 'string' && element.value.length <= 2000);
      },
    );
  });
}
