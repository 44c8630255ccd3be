import type { LiveMessage, LiveProgress } from '@switchboard/protocol';
import type { LiveContext } from './live-reply.js';
import { politely } from './send-gate.js';

/** What an edit-based platform offers: post a message, edit it, delete it. Text is the piece's Markdown. */
export interface EditablePlatform {
  /** Posts piece `index`; resolves with the new message's id. */
  post(markdown: string, index: number): Promise<string>;
  /** Replaces message `id`'s text. Throws `MessageGone` when the message no longer exists. */
  edit(id: string, markdown: string, index: number): Promise<void>;
  /** Deletes message `id`; a message already gone is no error. */
  remove(id: string): Promise<void>;
}

/** The message to edit was deleted (by a user or an admin): post it again instead. */
export class MessageGone extends Error {
  override name = 'MessageGone';
}

/**
 * A reply shown as a train of messages that are posted, then edited as the text grows — the way
 * Telegram groups, Slack without native streaming and Discord show a reply while it is written.
 * Each post is recorded in the job at once (with how much of the reply it holds), so a run that
 * follows a crash finds the messages and edits them: the chat never gets a second copy, and the
 * last run leaves the complete text. Every post and edit takes a turn of the shared limiter.
 */
export class EditedMessages {
  readonly #messages: LiveMessage[];
  /** The Markdown each message shows, when this run knows it (a message from an earlier run shows something unknown). */
  readonly #shown: (string | undefined)[] = [];
  #extra: Pick<LiveProgress, 'open' | 'mode'>;

  constructor(
    private readonly platform: EditablePlatform,
    private readonly context: Pick<LiveContext<unknown>, 'polite' | 'save' | 'split' | 'delivered'>,
    earlier: readonly LiveMessage[],
    extra: Pick<LiveProgress, 'open' | 'mode'> = {},
  ) {
    this.#messages = [...earlier];
    this.#extra = extra;
  }

  get count(): number {
    return this.#messages.length;
  }

  /** Records how the reply is shown (a mode decided after a refusal) with the next save. */
  async setExtra(extra: Pick<LiveProgress, 'open' | 'mode'>): Promise<void> {
    this.#extra = extra;
    await this.#save();
  }

  /** Shows the reply so far: edits the pieces whose text changed, posts the new ones. */
  async show(text: string): Promise<void> {
    const pieces = this.context.split(text);
    for (let index = 0; index < pieces.length; index++) await this.#put(index, pieces[index]!);
  }

  /**
   * Leaves the platform holding exactly `text`: every piece in place (pieces earlier runs finished
   * are skipped), recorded one by one, then messages of a longer earlier generation removed.
   *
   * @returns How many pieces the reply has.
   */
  async finish(text: string): Promise<number> {
    const pieces = this.context.split(text);
    for (let index = Math.min(this.context.delivered, pieces.length); index < pieces.length; index++) {
      await this.#put(index, pieces[index]!, index + 1);
    }
    while (this.#messages.length > pieces.length) {
      const extra = this.#messages.at(-1)!;
      await politely(this.context.polite, () => this.platform.remove(extra.id));
      this.#messages.pop();
      this.#shown.length = Math.min(this.#shown.length, this.#messages.length);
      await this.#save(pieces.length);
    }
    return pieces.length;
  }

  async #put(index: number, piece: string, delivered?: number): Promise<void> {
    const known = this.#messages[index];
    if (known && this.#shown[index] === piece) {
      if (delivered !== undefined) await this.#save(delivered);
      return;
    }
    if (known) {
      try {
        await politely(this.context.polite, () => this.platform.edit(known.id, piece, index));
        this.#messages[index] = { id: known.id, chars: piece.length };
      } catch (err) {
        if (!(err instanceof MessageGone)) throw err;
        this.#messages[index] = { id: await this.#post(piece, index), chars: piece.length };
      }
    } else {
      this.#messages.push({ id: await this.#post(piece, index), chars: piece.length });
    }
    this.#shown[index] = piece;
    await this.#save(delivered);
  }

  #post(piece: string, index: number): Promise<string> {
    return politely(this.context.polite, () => this.platform.post(piece, index));
  }

  #save(delivered?: number): Promise<void> {
    return this.context.save({ v: 1, messages: [...this.#messages], ...this.#extra }, delivered);
  }
}
