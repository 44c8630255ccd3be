import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError } from '@slack/web-api';
import type { LiveProgress } from '@switchboard/protocol';
import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import { type EditablePlatform, EditedMessages, MessageGone } from '../live/edited-messages.js';
import type { LiveContext, LiveReply } from '../live/live-reply.js';
import { politely } from '../live/send-gate.js';
import { markdownToSlackMrkdwn } from '../rich-text/slack-mrkdwn.js';
import { slackClient, slackFailure } from './slack-web-client.js';

/** Slack takes at most 12,000 characters of Markdown per streaming call. */
export const SLACK_STREAM_LIMIT = 12_000;

const replyToSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1), team: z.string().optional() });

interface SlackLiveConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
}

/** Hooks whose workspace refused native streaming: they post and update from then on (per process). */
const streamsRefused = new Set<string>();

/**
 * A Slack reply as it is written, in the message's thread. While the model thinks, the thread
 * shows the assistant status (`assistant.threads.setStatus`, where the app is an assistant). The
 * text streams natively (`chat.startStream` / `appendStream` / `stopStream` through the
 * library's `ChatStreamer`; Slack renders the Markdown); where that is refused, or for a reply
 * longer than one message, or when a run follows a crash, one message per piece is posted
 * (`chat.postMessage`) and updated (`chat.update`) in mrkdwn.
 */
export function slackLive(context: LiveContext<SlackLiveConfig>): LiveReply {
  const target = replyToSchema.safeParse(context.message.replyTo);
  if (!target.success) throw new DeliveryError(`Hook '${context.hook}': the job holds no Slack channel and thread`, false);
  const { channel, thread_ts, team } = target.data;
  const client = slackClient(context.config);
  const secrets = [context.config.botToken, context.config.signingSecret];
  const call = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw slackFailure(`Hook '${context.hook}': Slack ${method}`, err, secrets);
    }
  };

  const platform: EditablePlatform = {
    async post(markdown) {
      const posted = await call('chat.postMessage', () =>
        client.chat.postMessage({ channel, thread_ts, text: markdownToSlackMrkdwn(markdown) }),
      );
      if (typeof posted.ts !== 'string')
        throw new DeliveryError(`Hook '${context.hook}': Slack chat.postMessage gave no ts`, false);
      return posted.ts;
    },
    async edit(ts, markdown) {
      try {
        await call('chat.update', () => client.chat.update({ channel, ts, text: markdownToSlackMrkdwn(markdown) }));
      } catch (err) {
        if (/message_not_found/.test((err as Error).message)) throw new MessageGone('message_not_found');
        throw err;
      }
    },
    async remove(ts) {
      await call('chat.delete', () => client.chat.delete({ channel, ts })).catch((err: Error) => {
        if (!/message_not_found/.test(err.message)) throw err;
      });
    },
  };

  const earlier = context.earlier;
  let native = !earlier?.mode && !earlier?.messages.length && !streamsRefused.has(context.hook);
  /** This run's native stream, once started. */
  let streamTs: string | undefined;
  /** What that stream holds for certain. */
  let streamed = '';
  /** A streaming call failed without a clear answer: the stream may hold more than `streamed`. */
  let unsure = false;
  let edits: EditedMessages | undefined;
  let earlierStreamOpen = earlier?.open;

  /** A streaming call in its turn; one that may have been done unheard makes the stream unsure. */
  const streamCall = <T>(method: string, run: () => Promise<T>): Promise<T> =>
    politely(context.polite, () =>
      call(method, async () => {
        try {
          return await run();
        } catch (err) {
          if (!refusedOutright(err)) unsure = true;
          throw err;
        }
      }),
    );

  /** Stops a native stream (an earlier run's, or this one's) so its message can be updated; a stream already over is no error. */
  async function stopStream(ts: string): Promise<void> {
    await politely(context.polite, () => call('chat.stopStream', () => client.chat.stopStream({ channel, ts }))).catch(
      (err: DeliveryError) => {
        if (err.retryable) throw err;
      },
    );
  }

  /** From here on the reply posts and updates messages: the native stream (if any) is closed first. */
  async function toEdits(): Promise<EditedMessages> {
    if (edits) return edits;
    const messages = streamTs ? [{ id: streamTs, chars: streamed.length }] : (earlier?.messages ?? []);
    if (streamTs) await stopStream(streamTs);
    if (earlierStreamOpen) {
      await stopStream(earlierStreamOpen);
      earlierStreamOpen = undefined;
    }
    native = false;
    edits = new EditedMessages(platform, context, messages, { mode: 'edit' });
    await edits.setExtra({ mode: 'edit' });
    return edits;
  }

  /** Starts the stream in the message's thread, addressed to its writer; resolves with the stream's ts. */
  async function startStream(markdown: string): Promise<string> {
    const started = await streamCall('chat.startStream', () =>
      client.chat.startStream({
        channel,
        thread_ts,
        recipient_user_id: context.message.from,
        ...(team ? { recipient_team_id: team } : {}),
        markdown_text: markdown,
      }),
    );
    if (typeof started.ts !== 'string')
      throw new DeliveryError(`Hook '${context.hook}': Slack chat.startStream gave no ts`, false);
    return started.ts;
  }

  /** Appends what is new; the first append starts the stream. False when Slack refused streaming here. */
  async function append(text: string): Promise<boolean> {
    const delta = text.slice(streamed.length);
    if (!delta) return true;
    const started = streamTs !== undefined;
    try {
      if (streamTs) {
        const ts = streamTs;
        await streamCall('chat.appendStream', () => client.chat.appendStream({ channel, ts, markdown_text: delta }));
      } else {
        streamTs = await startStream(delta);
      }
    } catch (err) {
      if (!(err instanceof DeliveryError) || err.retryable || err.options.credentialsRefused) throw err;
      // An older workspace, a channel that is no assistant thread, a stream Slack already closed.
      context.log?.('slack refused native streaming; posting and updating', { error: err.message });
      if (!started) streamsRefused.add(context.hook);
      return false;
    }
    streamed = text;
    await save({ v: 1, messages: [{ id: streamTs, chars: streamed.length }], open: streamTs });
    return true;
  }

  const save = (progress: LiveProgress, delivered?: number) => context.save(progress, delivered);

  return {
    thinking(activity) {
      const status = activity ? `is using ${activity}…` : 'is thinking…';
      client.assistant.threads.setStatus({ channel_id: channel, thread_ts, status }).catch(() => {});
    },
    async update(text) {
      if (native && !unsure && context.split(text).length === 1 && (await append(text))) return;
      await (await toEdits()).show(text);
    },
    async finish(reply) {
      const whole = context.split(reply.text).length === 1;
      if (native && !unsure && whole && reply.text.startsWith(streamed) && (await append(reply.text)) && streamTs) {
        const ts = streamTs;
        await streamCall('chat.stopStream', () => client.chat.stopStream({ channel, ts }));
        await save({ v: 1, messages: [{ id: ts, chars: reply.text.length }] }, 1);
        return 1;
      }
      return (await toEdits()).finish(reply.text);
    },
    close() {},
  };
}

/**
 * True when Slack answered and refused the call (a 429, `{ok: false}`, another 4xx): it did
 * nothing. Without an answer (a time-out, a dropped connection) or with a 5xx, it may have been done.
 */
function refusedOutright(err: unknown): boolean {
  return (
    err instanceof WebAPIRateLimitedError ||
    err instanceof WebAPIPlatformError ||
    (err instanceof WebAPIHTTPError && err.statusCode < 500)
  );
}
