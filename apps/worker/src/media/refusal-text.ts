import type { MediaProblem } from './download-media.js';

/** The kinds of file a hook takes (its `media` config). */
export interface MediaTakes {
  images: boolean;
  audio: boolean;
  documents: boolean;
}

/** A message whose files the bot cannot use: the problem, and what to tell the sender about the hook's limits. */
export interface RefusedTurn {
  refused: MediaProblem;
  maxBytes: number;
  takes: MediaTakes;
}

/** What the sender is told when a file cannot be used: short, polite, and never the URL. */
export function refusalText({ refused, maxBytes, takes }: RefusedTurn): string {
  switch (refused) {
    case 'too-big':
      return `Sorry, that file is too big for me (the limit is ${Math.floor(maxBytes / 1_000_000) || 1} MB).`;
    case 'gone':
      return 'Sorry, I could not fetch that file; it may have expired. Could you send it again?';
    case 'private':
      return 'Sorry, I cannot fetch files from that address.';
    case 'unsupported': {
      const kinds = [
        takes.images && 'look at JPEG, PNG, GIF and WebP images',
        takes.audio && 'listen to voice notes and audio',
        takes.documents && 'read PDF, text, Markdown and CSV documents',
      ].filter((kind): kind is string => typeof kind === 'string');
      return kinds.length
        ? `Sorry, I cannot read that kind of file; I can ${listed(kinds)}.`
        : 'Sorry, I cannot read that kind of file.';
    }
    case 'off':
      return 'Sorry, I cannot look at images or files here; please send your question as text.';
    case 'audio-off':
      return 'Sorry, I cannot listen to voice notes here; please send your question as text.';
    case 'unheard':
      return 'Sorry, I could not make out that voice note. Could you send it again, or type your question?';
    case 'documents-off':
      return 'Sorry, I cannot read documents here; please paste the part you want me to look at.';
    case 'unreadable':
      return 'Sorry, I could not read that document. Could you paste the part you want me to look at?';
    case 'no-vision':
      return 'Sorry, I cannot look at images with this model; please describe it in words.';
  }
}

function listed(items: string[]): string {
  if (items.length < 3) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}
