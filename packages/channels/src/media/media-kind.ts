import type { MediaRef } from '@switchboard/protocol';

/** What a declared content type says a file is: only a hint (the worker sniffs the bytes). */
export function mediaKindOf(type: string | undefined): MediaRef['kind'] {
  const main = type?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (main.startsWith('image/')) return 'image';
  if (main.startsWith('audio/')) return 'audio';
  if (main === 'application/pdf' || main.startsWith('text/')) return 'document';
  return 'file';
}
