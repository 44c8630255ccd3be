import type { LiveContext, LiveReply } from '../live/live-reply.js';

/**
 * A generic hook's reply as it is written: each update appends what is new to the job's feed
 * (`delta`), which callers read at `GET /hooks/:name/jobs/:id/stream`; the complete reply is a
 * `done` event, then the one POST to `replyUrl` as before. A run that starts over after a crash
 * first writes `reset`, so a reader drops the text of the run that died.
 */
export function genericLive(context: LiveContext<unknown>): LiveReply {
  const feed = context.feed;
  let sent = '';
  let reset = context.rerun;
  const append = async (text: string) => {
    if (!feed || !text.startsWith(sent) || text.length === sent.length) return;
    if (reset) {
      await feed.append('reset', {});
      reset = false;
    }
    await feed.append('delta', { text: text.slice(sent.length) });
    sent = text;
  };
  return {
    thinking() {},
    update: append,
    async finish(reply) {
      // The text that came after the last paced update: the deltas always add up to the reply.
      await append(reply.text);
      await feed?.append('done', { text: reply.text, model: reply.model, created: reply.created });
      if (context.delivered < 1) await context.deliver(reply.text, 0, reply);
      return 1;
    },
    close() {},
  };
}
