import type { LiveContext, LiveReply } from '../live/live-reply.js';

/**
 * A generic hook's reply as it is written: while a caller reads the job's feed (`GET
 * /hooks/:name/jobs/:id/stream`), each update appends what is new to it (`delta`); the complete
 * reply is a `done` event, then the one POST to `replyUrl` as before. Nothing is written to a feed
 * nobody reads: each update asks whether a reader came, and the first delta written holds all the
 * text so far. A run that starts over after a crash first writes `reset`, so a reader drops the
 * text of the run that died.
 */
export function genericLive(context: LiveContext<unknown>): LiveReply {
  const feed = context.feed;
  let sent = '';
  let reset = context.rerun;
  /** Appends the text not in the feed yet; false when nobody reads the feed (nothing written). */
  const append = async (text: string): Promise<boolean> => {
    if (!feed || !(await feed.watched())) return false;
    if (!text.startsWith(sent) || text.length === sent.length) return true;
    if (reset) {
      await feed.append('reset', {});
      reset = false;
    }
    await feed.append('delta', { text: text.slice(sent.length) });
    sent = text;
    return true;
  };
  return {
    thinking() {},
    async update(text) {
      await append(text);
    },
    async finish(reply) {
      // The text that came after the last paced update: the deltas always add up to the reply.
      if (await append(reply.text)) await feed?.append('done', { text: reply.text, model: reply.model, created: reply.created });
      if (context.delivered < 1) await context.deliver(reply.text, 0, reply);
      return 1;
    },
    close() {},
  };
}
