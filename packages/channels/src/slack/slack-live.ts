import type { ChatStreamer } from '@slack/web-api';
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
  let streamer: ChatStreamer | undefined;
  let streamed = '';
  let edits: EditedMessages | undefined;
  let earlierStreamOpen = earlier?.open;

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
    const messages = streamer?.ts ? [{ id: streamer.ts, chars: streamed.length }] : (earlier?.messages ?? []);
    if (streamer?.ts) await stopStream(streamer.ts);
    if (earlierStreamOpen) {
      await stopStream(earlierStreamOpen);
      earlierStreamOpen = undefined;
    }
    native = false;
    edits = new EditedMessages(platform, context, messages, { mode: 'edit' });
    await edits.setExtra({ mode: 'edit' });
    return edits;
  }

  /** Appends what is new; the first append starts the stream. False when Slack refused streaming here. */
  async function append(text: string): Promise<boolean> {
    const delta = text.slice(streamed.length);
    if (!delta) return true;
    streamer ??= client.chatStream({
      channel,
      thread_ts,
      recipient_user_id: context.message.from,
      ...(team ? { recipient_team_id: team } : {}),
      buffer_size: 1,
    });
    const started = Boolean(streamer.ts);
    try {
      await politely(context.polite, () =>
        call(started ? 'chat.appendStream' : 'chat.startStream', () => streamer!.append({ markdown_text: delta })),
      );
    } catch (err) {
      if (!(err instanceof DeliveryError) || err.retryable || err.options.credentialsRefused) throw err;
      // An older workspace, a channel that is no assistant thread, a stream Slack already closed.
      context.log?.('slack refused native streaming; posting and updating', { error: err.message });
      if (!started) streamsRefused.add(context.hook);
      return false;
    }
    streamed = text;
    await save({ v: 1, messages: [{ id: streamer.ts!, chars: streamed.length }], open: streamer.ts! });
    return true;
  }

  const save = (progress: LiveProgress, delivered?: number) => context.save(progress, delivered);

  return {
    thinking(activity) {
      const status = activity ? `is using ${activity}…` : 'is thinking…';
      client.assistant.threads.setStatus({ channel_id: channel, thread_ts, status }).catch(() => {});
    },
    async update(text) {
      if (native && context.split(text).length === 1 && (await append(text))) return;
      await (await toEdits()).show(text);
    },
    async finish(reply) {
      const whole = context.split(reply.text).length === 1;
      if (native && whole && reply.text.startsWith(streamed) && (await append(reply.text)) && streamer?.ts) {
        const ts = streamer.ts;
        await politely(context.polite, () => call('chat.stopStream', () => streamer!.stop()));
        await save({ v: 1, messages: [{ id: ts, chars: reply.text.length }] }, 1);
        return 1;
      }
      return (await toEdits()).finish(reply.text);
    },
    close() {},
  };
}
