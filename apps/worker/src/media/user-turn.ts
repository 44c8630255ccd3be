import { MediaGoneError, MediaHostRefused, type MediaLocation } from '@switchboard/channels';
import { AppError, type ContentPart, type MediaRef, mediaPlaceholder } from '@switchboard/protocol';
import { fileTypeFromBuffer } from 'file-type';
import type { WorkerDeps } from '../deps.js';
import type { MessageJob } from '../message-job.js';
import { MediaRefusal } from './download-media.js';
import { readDocument } from './read-document.js';
import type { MediaTakes, RefusedTurn } from './refusal-text.js';
import { isAudioType, transcribeAudio } from './transcribe-audio.js';

/** The image types vision models take (OpenAI and Anthropic both list these four). */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The user's turn as the model sees it and as memory keeps it: the text alone, or — when the
 * message carries files — the text with each image as an `image_url` part (a data URL of the bytes,
 * their type sniffed from the bytes), each voice note as its transcript and each document as its
 * text, while memory keeps placeholders (`[image: receipt.jpg]`, `[voice 0:14] <transcript>`,
 * `[document: q3.pdf, 12 pages] <first lines>`). A file the bot cannot use ends it: `refused`
 * names the problem.
 */
export type UserTurn = ModelTurn | RefusedTurn;

/** A turn the model is asked to answer: what it is sent, and what memory keeps. */
export interface ModelTurn {
  content: string | ContentPart[];
  memo: string;
}

/** One file made usable: an image part, or text (a transcript, a document) for the turn's text. */
type TakenFile = { image: ContentPart; memo: string } | { text: string; memo: string };

interface TakeContext {
  takes: MediaTakes;
  /** `media.vision: false`: the model cannot see images, so an image is refused before it is fetched. */
  vision: boolean;
  audioModel: string | undefined;
  maxBytes: number;
  maxDocumentChars: number;
  allowPrivateUrls: boolean;
  signal: AbortSignal;
}

/** The turn of a message without files: its text, for the model and for memory; null when it carries files. */
export function textTurn(job: MessageJob): ModelTurn | null {
  const { text, media } = job.queued.message;
  return media === undefined || media.length === 0 ? { content: text, memo: text } : null;
}

export async function userTurn(deps: WorkerDeps, job: MessageJob, signal: AbortSignal): Promise<UserTurn> {
  const textOnly = textTurn(job);
  if (textOnly) return textOnly;
  const { text, media = [] } = job.queued.message;
  const context: TakeContext = { ...mediaSettings(job), signal };
  const taken: TakenFile[] = [];
  try {
    for (const [index, ref] of media.entries()) taken.push(await takeFile(deps, job, ref, index, context));
  } catch (err) {
    if (err instanceof MediaRefusal) return { refused: err.problem, maxBytes: context.maxBytes, takes: context.takes };
    throw err;
  }
  const images = taken.flatMap((file) => ('image' in file ? [file.image] : []));
  const words = [text.trim() ? text : '', ...taken.flatMap((file) => ('text' in file ? [file.text] : []))]
    .filter(Boolean)
    .join('\n\n');
  const memo = [...taken.map((file) => file.memo), text].filter(Boolean).join(' ');
  if (images.length === 0) return { content: words, memo };
  return { content: words ? [{ type: 'text', text: words }, ...images] : images, memo };
}

/** The hook's `media` config, its defaults filled in. */
function mediaSettings(job: MessageJob): Omit<TakeContext, 'signal'> {
  const config = job.hook.config.media;
  return {
    takes: { images: config?.images ?? false, audio: config?.audio !== undefined, documents: config?.documents ?? false },
    vision: config?.vision ?? true,
    audioModel: config?.audio,
    maxBytes: config?.maxBytes ?? 20_000_000,
    maxDocumentChars: config?.maxDocumentChars ?? 50_000,
    allowPrivateUrls: config?.allowPrivateUrls ?? false,
  };
}

/**
 * The model's call failed: a turn with images that the upstream rejected as a bad request (OpenAI
 * answers a model without vision 400 `invalid_request_error`, "Invalid content type. image_url is
 * only supported by certain models."; our providers map any upstream 400/413/422 to
 * `upstream_bad_request`) is a polite `no-vision` reply, not a failed job, and a warning in the log.
 * Anything else is thrown again.
 */
export function cannotSee(deps: WorkerDeps, job: MessageJob, content: string | ContentPart[], err: unknown): RefusedTurn {
  const withImages = Array.isArray(content) && content.some((part) => part.type === 'image_url');
  if (!withImages || !(err instanceof AppError) || err.code !== 'upstream_bad_request') throw err;
  // The operator's to fix (a model without vision, or `media.vision: false`), not the sender's: a warning.
  deps.logger.warn("the hook's model refused the message's images: answered as unable to see them", {
    hook: job.hook.name,
    jobId: job.jobId,
    model: job.hook.config.model,
    error: err.message,
  });
  const { takes, maxBytes } = mediaSettings(job);
  return { refused: 'no-vision', maxBytes, takes };
}

/**
 * Fetches one file and makes it usable. A kind the hook does not take is refused before anything
 * is fetched when the platform declared it; otherwise the bytes decide what the file is.
 */
async function takeFile(
  deps: WorkerDeps,
  job: MessageJob,
  ref: MediaRef,
  index: number,
  context: TakeContext,
): Promise<TakenFile> {
  const { takes } = context;
  if (!job.hook.locateMedia) throw new MediaRefusal('off', 'this channel cannot fetch files');
  if (ref.kind === 'audio' && !takes.audio) throw new MediaRefusal('audio-off', 'audio is off for this hook');
  if (ref.kind === 'document' && !takes.documents) throw new MediaRefusal('documents-off', 'documents are off for this hook');
  if (ref.kind === 'image' && !takes.images) throw new MediaRefusal('off', 'images are off for this hook');
  if (ref.kind === 'image' && !context.vision) throw new MediaRefusal('no-vision', "the hook's model cannot see images");
  if (!takes.images && !takes.audio && !takes.documents) throw new MediaRefusal('off', 'files are off for this hook');
  // A voice note an earlier run of this job transcribed: its transcript, neither fetched nor transcribed again.
  const heard = context.audioModel && job.job.attemptsStarted > 1 ? await deps.hub.transcripts.read(job.jobId, index) : null;
  if (heard) return heard;
  if (ref.size !== undefined && ref.size > context.maxBytes)
    throw new MediaRefusal('too-big', 'the platform reports a larger file');
  const bytes = await fetchRef(deps, job, ref, context);
  // The bytes decide, not the declared type: a "PNG" that is a script is refused.
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed && IMAGE_TYPES.has(sniffed.mime)) {
    if (!takes.images) throw new MediaRefusal('off', 'images are off for this hook');
    if (!context.vision) throw new MediaRefusal('no-vision', "the hook's model cannot see images");
    return {
      image: { type: 'image_url', image_url: { url: `data:${sniffed.mime};base64,${bytes.toString('base64')}` } },
      memo: mediaPlaceholder({ ...ref, kind: 'image' }),
    };
  }
  if (sniffed && isAudioType(sniffed.mime)) {
    if (!context.audioModel) throw new MediaRefusal('audio-off', 'audio is off for this hook');
    const audio = { bytes, ref, mime: sniffed.mime, ext: sniffed.ext, model: context.audioModel };
    return deps.hub.transcripts.record(job.jobId, index, await transcribeAudio(deps, job, audio, context.signal));
  }
  // Text, Markdown and CSV have no signature: only a file declared a document (or of no kind) is read as text.
  const documentLike = sniffed?.mime === 'application/pdf' || (!sniffed && (ref.kind === 'document' || ref.kind === 'file'));
  if (documentLike && takes.documents) {
    return readDocument(bytes, ref, sniffed?.mime, { maxChars: context.maxDocumentChars, signal: context.signal });
  }
  if (documentLike && ref.kind === 'document') throw new MediaRefusal('documents-off', 'documents are off for this hook');
  throw new MediaRefusal('unsupported', 'not a kind of file this hook takes');
}

async function fetchRef(deps: WorkerDeps, job: MessageJob, ref: MediaRef, context: TakeContext): Promise<Buffer> {
  let location: MediaLocation;
  try {
    location = await job.hook.locateMedia!(ref);
  } catch (err) {
    if (err instanceof MediaGoneError) throw new MediaRefusal('gone', 'the platform no longer has the file');
    if (err instanceof MediaHostRefused) throw new MediaRefusal('private', err.message);
    throw err;
  }
  const { maxBytes, allowPrivateUrls, signal } = context;
  return deps.media.fetch(location, { maxBytes, allowPrivateUrls, signal });
}
