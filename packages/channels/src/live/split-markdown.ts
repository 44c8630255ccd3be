import { splitText } from '../split-text.js';

/** Room kept in each piece for a fence closed at its end and reopened at the next one's start. */
const FENCE_ROOM = 40;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface OpenFence {
  marker: string;
  info: string;
}

/**
 * Cuts Markdown into pieces of at most `limit` characters at natural boundaries (as `splitText`),
 * and keeps code blocks whole across a cut: a piece that ends inside a fenced block closes it, and
 * the next piece reopens it with the same fence and language. Each piece thus renders on its own.
 *
 * The cut of a growing text never moves once later text exists, so a reply streamed into several
 * messages keeps its earlier pieces as they were shown.
 */
export function splitMarkdown(text: string, limit: number): string[] {
  if (!Number.isFinite(limit)) return [text];
  const pieces = splitText(text, Math.max(limit - FENCE_ROOM, 2));
  if (pieces.length === 1) return pieces;
  let open: OpenFence | null = null;
  return pieces.map((piece) => {
    const reopened = open ? `${open.marker}${open.info}\n${piece}` : piece;
    open = fenceAtEnd(piece, open);
    return open ? `${reopened}\n${open.marker}` : reopened;
  });
}

/** The fence still open after `piece`, given the one open before it. */
function fenceAtEnd(piece: string, before: OpenFence | null): OpenFence | null {
  let open = before;
  for (const line of piece.split('\n')) {
    const match = FENCE.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    const info = match[2]!.trim();
    if (!open) open = { marker, info: info.length <= FENCE_ROOM / 2 - marker.length ? info : '' };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && info === '') open = null;
  }
  return open;
}
