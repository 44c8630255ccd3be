/**
 * Where the bytes of a file a message carries are: a URL to GET (with the headers the platform
 * wants, e.g. Slack's bot token), or the bytes themselves (a generic hook's `data:` URL). The
 * worker fetches it, bounded; the channel only says where.
 */
export type MediaLocation =
  | {
      url: string;
      /** Sent with the GET; may hold a secret (never logged, never in an error). */
      headers?: Record<string, string>;
      /** The URL came from a caller, not a platform: refuse private addresses unless the hook allows them. */
      untrusted?: boolean;
    }
  | { data: Buffer };

/** A file the platform says is gone, or a reference the channel cannot read: the sender is told, no retry. */
export class MediaGoneError extends Error {
  override readonly name = 'MediaGoneError';
}

/** A file at an address the channel will not send its credentials to: the sender is told, no retry. */
export class MediaHostRefused extends Error {
  override readonly name = 'MediaHostRefused';
}
