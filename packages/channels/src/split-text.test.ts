import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitText } from './split-text.js';

const isLoneHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLoneLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

describe('splitText', () => {
  it('returns a text within the limit as one piece', () => {
    expect(splitText('hello', 5)).toEqual(['hello']);
    expect(splitText('', 10)).toEqual(['']);
  });

  it('cuts at the last paragraph break that fits', () => {
    const text = 'first paragraph.\n\nsecond one.\n\nthird paragraph here.';
    expect(splitText(text, 32)).toEqual(['first paragraph.\n\nsecond one.', 'third paragraph here.']);
  });

  it('prefers a line break to a space when no paragraph break fits', () => {
    expect(splitText('line one is here\nline two', 20)).toEqual(['line one is here', 'line two']);
  });

  it('cuts at a space when a line is too long', () => {
    expect(splitText('alpha beta gamma delta', 11)).toEqual(['alpha beta', 'gamma delta']);
  });

  it('may drop a separator that lies just past the limit', () => {
    expect(splitText('abcde fgh', 5)).toEqual(['abcde', 'fgh']);
    expect(splitText('abcde\n\nfgh', 5)).toEqual(['abcde', 'fgh']);
  });

  it('cuts inside a word only when the word alone exceeds the limit', () => {
    expect(splitText('abcdefghij xy', 4)).toEqual(['abcd', 'efgh', 'ij', 'xy']);
  });

  it('never cuts a surrogate pair in half', () => {
    const pieces = splitText('ab😀😀😀', 3);
    expect(pieces).toEqual(['ab', '😀', '😀', '😀']);
  });

  it('skips the extra blank lines between paragraphs', () => {
    expect(splitText('one\n\n\n\ntwo', 4)).toEqual(['one', 'two']);
  });

  it('keeps a long Telegram reply within 4096 characters per piece', () => {
    const paragraph = `${'word '.repeat(150).trim()}.`;
    const text = Array.from({ length: 20 }, () => paragraph).join('\n\n');
    const pieces = splitText(text, 4096);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(4096);
      // Whole paragraphs only: each piece starts and ends one.
      expect(piece.startsWith('word')).toBe(true);
      expect(piece.endsWith('word.')).toBe(true);
    }
  });

  it('refuses a limit that cannot hold one astral character', () => {
    expect(() => splitText('abc', 1)).toThrow(RangeError);
  });

  it('keeps every piece within the limit, whole characters, and all the words, for any text', () => {
    const alphabet = fc.constantFrom('a', 'b', ' ', '\n', '😀', 'é', '𝄞', '\t');
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 300 }).map((chars) => chars.join('')),
        fc.integer({ min: 2, max: 40 }),
        (text, limit) => {
          const pieces = splitText(text, limit);
          expect(pieces.length).toBeGreaterThan(0);
          for (const piece of pieces) {
            expect(piece.length).toBeLessThanOrEqual(limit);
            expect(isLoneLow(piece.charCodeAt(0))).toBe(false);
            expect(isLoneHigh(piece.charCodeAt(piece.length - 1))).toBe(false);
          }
          const squeeze = (s: string) => s.replace(/\s+/g, '');
          expect(squeeze(pieces.join(''))).toBe(squeeze(text));
        },
      ),
    );
  });
});
