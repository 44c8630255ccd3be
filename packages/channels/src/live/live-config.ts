import { z } from 'zod';

/**
 * The keys a hook of a live channel has besides its own: whether replies stream, and how often
 * a message being written is edited (or a stream appended to).
 */
export function liveConfigShape(defaultIntervalMs: number) {
  return {
    /** Show the reply while the model writes it. @defaultValue true */
    stream: z.boolean().default(true),
    /** The shortest time between two updates of a reply being written, ms. */
    streamIntervalMs: z.int().min(50).max(60_000).default(defaultIntervalMs),
  };
}
