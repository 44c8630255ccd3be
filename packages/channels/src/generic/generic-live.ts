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
  /**
   * Appends the text not in the feed yet; false when nobody reads the feed (nothing written) —
   * at once, without a promise, when the feed knows that without asking Redis (the common case).
   */
  const append = (text: string): false | Promise<boolean> => {
    const watched = feed ? feed.watched() : false;
    return watched === false ? false : appendWatched(watched, text);
  };
  const appendWatched = async (watched: true | Promise<boolean>, text: string): Promise<boolean> => {
    if (!feed || !(await watched)) return false;
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
    update(text) {
      const appended = append(text);
      return appended === false ? NOTHING_WRITTEN : appended.then(() => {});
    },
    async finish(reply) {
      // The text that came after the last paced update: the deltas always add up to the reply.
      const appended = append(reply.text);
      if (appended !== false && (await appended)) {
        await feed?.append('done', { text: reply.text, model: reply.model, created: reply.created });
      }
      if (context.delivered < 1) await context.deliver(reply.text, 0, reply);
      return 1;
    },
    close() {},
  };
}

/** An update that wrote nothing (nobody reads the feed): already over. */
const NOTHING_WRITTEN: Promise<void> = Promise.resolve();
