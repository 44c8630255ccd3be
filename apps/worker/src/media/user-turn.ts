import { MediaGoneError, MediaHostRefused, type MediaLocation } from '@switchboard/channels';
import { type ContentPart, type MediaRef, mediaPlaceholder } from '@switchboard/protocol';
import { fileTypeFromBuffer } from 'file-type';
import type { WorkerDeps } from '../deps.js';
import type { MessageJob } from '../message-job.js';
import { type MediaProblem, MediaRefusal } from './download-media.js';

/** The image types vision models take (OpenAI and Anthropic both list these four). */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** What the sender is told when a file cannot be used: short, polite, and never the URL. */
export function refusalText(problem: MediaProblem, maxBytes: number): string {
  switch (problem) {
    case 'too-big':
      return `Sorry, that file is too big for me (the limit is ${Math.floor(maxBytes / 1_000_000) || 1} MB).`;
    case 'gone':
      return 'Sorry, I could not fetch that file; it may have expired. Could you send it again?';
    case 'private':
      return 'Sorry, I cannot fetch files from that address.';
    case 'unsupported':
      return 'Sorry, I cannot read that kind of file; I can look at JPEG, PNG, GIF and WebP images.';
    case 'off':
      return 'Sorry, I cannot look at images or files here; please send your question as text.';
  }
}

/**
 * The user's turn as the model sees it and as memory keeps it: the text alone, or — when the
 * message carries files — the text with each image as an `image_url` part (a data URL of the bytes,
 * their type sniffed from the bytes), while memory keeps a placeholder (`[image: receipt.jpg]`).
 * A file the bot cannot use ends it: `refused` names the problem.
 */
export type UserTurn = { content: string | ContentPart[]; memo: string } | { refused: MediaProblem; maxBytes: number };

export async function userTurn(deps: WorkerDeps, job: MessageJob, signal: AbortSignal): Promise<UserTurn> {
  const { text, media = [] } = job.queued.message;
  if (media.length === 0) return { content: text, memo: text };
  const config = job.hook.config.media;
  const maxBytes = config?.maxBytes ?? 20_000_000;
  const images: ContentPart[] = [];
  const names: string[] = [];
  try {
    for (const ref of media) {
      // Audio and documents are not built yet; a file of no declared kind may still be an image.
      if (ref.kind === 'audio' || ref.kind === 'document') throw new MediaRefusal('unsupported', `${ref.kind} is not taken yet`);
      if (!config?.images || !job.hook.locateMedia) throw new MediaRefusal('off', 'images are off for this hook');
      if (ref.size !== undefined && ref.size > maxBytes) throw new MediaRefusal('too-big', 'the platform reports a larger file');
      const bytes = await fetchRef(deps, job, ref, { maxBytes, allowPrivateUrls: config.allowPrivateUrls, signal });
      const sniffed = (await fileTypeFromBuffer(bytes))?.mime;
      // The bytes decide, not the declared type: a "PNG" that is a script is refused.
      if (!sniffed || !IMAGE_TYPES.has(sniffed)) throw new MediaRefusal('unsupported', 'not an image type the model takes');
      images.push({ type: 'image_url', image_url: { url: `data:${sniffed};base64,${bytes.toString('base64')}` } });
      names.push(mediaPlaceholder(ref));
    }
  } catch (err) {
    if (err instanceof MediaRefusal) return { refused: err.problem, maxBytes };
    throw err;
  }
  const parts: ContentPart[] = text.trim() ? [{ type: 'text', text }, ...images] : images;
  return { content: parts, memo: [...names, text].filter(Boolean).join(' ') };
}

async function fetchRef(
  deps: WorkerDeps,
  job: MessageJob,
  ref: MediaRef,
  limits: { maxBytes: number; allowPrivateUrls: boolean; signal: AbortSignal },
): Promise<Buffer> {
  let location: MediaLocation;
  try {
    location = await job.hook.locateMedia!(ref);
  } catch (err) {
    if (err instanceof MediaGoneError) throw new MediaRefusal('gone', 'the platform no longer has the file');
    if (err instanceof MediaHostRefused) throw new MediaRefusal('private', err.message);
    throw err;
  }
  return deps.media.fetch(location, limits);
}
