/**
 * Cuts a reply into pieces of at most `limit` UTF-16 code units, preferring paragraph breaks,
 * then line breaks, then spaces, and cutting mid-word only when a single word is too long.
 *
 * Lengths are counted in UTF-16 code units (JavaScript's `length`): that is never less than the
 * code-point count Discord uses and equals what Telegram counts, so a piece that fits here fits
 * everywhere. A hard cut never falls inside a surrogate pair, so no piece holds half an emoji.
 *
 * @param limit - The platform's maximum message length; at least 2 (one astral character).
 */
export function splitText(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError(`splitText needs an integer limit of at least 2, got ${limit}`);
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const { end, skip } = findCut(rest, limit);
    // Trailing blanks (the rest of a run of newlines, say) show as nothing at the end of a message.
    const piece = rest.slice(0, end).trimEnd();
    // A blank piece is something no platform accepts and no reader misses.
    if (piece.trim() !== '') pieces.push(piece);
    // The separator is dropped; further blank lines would only open the next piece with emptiness.
    rest = rest.slice(end + skip).replace(/^\n+/, '');
  }
  if (rest.trim() !== '' || pieces.length === 0) pieces.push(rest);
  return pieces;
}

const SEPARATORS = ['\n\n', '\n', ' '] as const;

/** Where the next piece ends (`end`) and how many separator characters to drop after it (`skip`). */
function findCut(text: string, limit: number): { end: number; skip: number } {
  for (const separator of SEPARATORS) {
    // The separator itself may lie just past the limit: it is dropped, not sent.
    const at = text.lastIndexOf(separator, limit);
    if (at > 0) return { end: at, skip: separator.length };
  }
  return { end: hardCut(text, limit), skip: 0 };
}

/** The last position at or before `limit` that does not split a surrogate pair. */
function hardCut(text: string, limit: number): number {
  const before = text.charCodeAt(limit - 1);
  const isHighSurrogate = before >= 0xd800 && before <= 0xdbff;
  return isHighSurrogate ? limit - 1 : limit;
}
