import type { ServerResponse } from 'node:http';
import { type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { FakeRateLimit, type FakeRule } from './fake-rate-limit.js';

/**
 * A local Slack Web API (`<url>/api/<method>`) that enforces what the documentation says: the bot
 * token as a Bearer token, JSON or form-encoded bodies, `text` up to 40,000 characters and
 * streamed Markdown up to 12,000 per call, native streams (`chat.startStream` needs a recipient
 * in a channel, `appendStream`/`stopStream` only while streaming), `chat.update` only of a message
 * that is not streaming, and about one message a second per channel — answered with HTTP 429 and
 * `Retry-After` (whole seconds, as Slack sends it). Every message call counts towards the limit.
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
}

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
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
  close(): Promise<void>;
}

const COUNTED = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const limit = options.limit ?? { count: 1, perMs: 1000 };
  const rate = new FakeRateLimit();
  const messages: SlackMessage[] = [];
  const calls: SlackCall[] = [];
  let seq = 0;

  const reply = (res: ServerResponse, call: SlackCall, body: Record<string, unknown>) => {
    call.error = typeof body.error === 'string' ? body.error : null;
    sendJson(res, 200, body);
  };

  const server = await startLocalServer((req: RecordedRequest, res) => {
    const method = req.url.replace(/^\/api\//, '');
    const args = readArgs(req);
    const call: SlackCall = { method, args, error: null };
    calls.push(call);
    if (req.headers.authorization !== `Bearer ${options.botToken}`) return reply(res, call, { ok: false, error: 'invalid_auth' });
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
    const markdown = markdownOf(args);
    const find = () => messages.find((m) => m.channel === channel && m.ts === args.ts);
    switch (method) {
      case 'chat.postMessage': {
        const text = String(args.text ?? '');
        if (text.length > 40_000) return reply(res, call, { ok: false, error: 'msg_too_long' });
        if (!text) return reply(res, call, { ok: false, error: 'no_text' });
        const message = post(channel, args.thread_ts, text, false);
        return reply(res, call, { ok: true, channel, ts: message.ts, message: { type: 'message', text, ts: message.ts } });
      }
      case 'chat.update': {
        const message = find();
        if (!message) return reply(res, call, { ok: false, error: 'message_not_found' });
        if (message.streaming) return reply(res, call, { ok: false, error: 'cant_update_message' });
        const text = String(args.text ?? '');
        if (text.length > 40_000) return reply(res, call, { ok: false, error: 'msg_too_long' });
        message.text = text;
        return reply(res, call, { ok: true, channel, ts: message.ts, text });
      }
      case 'chat.delete': {
        const message = find();
        if (!message) return reply(res, call, { ok: false, error: 'message_not_found' });
        messages.splice(messages.indexOf(message), 1);
        return reply(res, call, { ok: true, channel, ts: message.ts });
      }
      case 'chat.startStream': {
        if (options.streaming === false) return reply(res, call, { ok: false, error: 'feature_not_enabled' });
        if (channel.startsWith('C') && (!args.recipient_user_id || !args.recipient_team_id)) {
          return reply(res, call, { ok: false, error: 'invalid_arguments' });
        }
        if (markdown.length > 12_000) return reply(res, call, { ok: false, error: 'msg_too_long' });
        const message = post(channel, args.thread_ts, markdown, true);
        return reply(res, call, { ok: true, channel, ts: message.ts });
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const message = find();
        if (!message) return reply(res, call, { ok: false, error: 'message_not_found' });
        if (!message.streaming) return reply(res, call, { ok: false, error: 'message_not_in_streaming_state' });
        if (markdown.length > 12_000) return reply(res, call, { ok: false, error: 'msg_too_long' });
        message.text += markdown;
        if (method === 'chat.stopStream') message.streaming = false;
        return reply(res, call, { ok: true, channel, ts: message.ts });
      }
      case 'assistant.threads.setStatus':
        return reply(res, call, { ok: true });
      default:
        return reply(res, call, { ok: false, error: 'unknown_method' });
    }
  });

  function post(channel: string, threadTs: unknown, text: string, streaming: boolean): SlackMessage {
    seq++;
    const message: SlackMessage = {
      ts: `1736942500.${String(seq).padStart(6, '0')}`,
      channel,
      ...(typeof threadTs === 'string' ? { thread_ts: threadTs } : {}),
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
    close: () => server.close(),
  };
}

/** Slack takes JSON or a form; in a form, structured arguments (`chunks`) are JSON strings. */
function readArgs(req: RecordedRequest): Record<string, unknown> {
  if (req.json && typeof req.json === 'object') return req.json as Record<string, unknown>;
  const args: Record<string, unknown> = Object.fromEntries(new URLSearchParams(req.body));
  if (typeof args.chunks === 'string') {
    try {
      args.chunks = JSON.parse(args.chunks);
    } catch {
      args.chunks = [];
    }
  }
  return args;
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
