import { describe, expect, it } from 'vitest';
import { splitMarkdown } from './split-markdown.js';

describe('splitMarkdown', () => {
  it('keeps a reply that fits in one piece as it is', () => {
    expect(splitMarkdown('**short**\n\n```js\nx\n```', 100)).toEqual(['**short**\n\n```js\nx\n```']);
  });

  it('closes a code block at the end of a piece and reopens it, with its language, in the next', () => {
    const code = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const pieces = splitMarkdown(`\`\`\`python\n${code}\n\`\`\`\n\nAfter.`, 120);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(120);
    expect(pieces[0]!.startsWith('```python\nline 0')).toBe(true);
    expect(pieces[0]!.endsWith('\n```')).toBe(true);
    expect(pieces[1]!.startsWith('```python\n')).toBe(true);
    // Every piece has balanced fences, so each renders on its own.
    for (const piece of pieces) expect(piece.match(/^```/gm)!.length % 2).toBe(0);
    expect(pieces.at(-1)!.endsWith('After.')).toBe(true);
  });

  it('cuts the earlier pieces of a growing text where it cut them before', () => {
    const full = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} of a long answer.`).join(' ');
    const early = splitMarkdown(full.slice(0, 300), 200);
    const late = splitMarkdown(full, 200);
    expect(late[0]).toBe(early[0]);
  });

  it('leaves an unlimited channel’s reply whole', () => {
    expect(splitMarkdown('x'.repeat(10_000), Number.POSITIVE_INFINITY)).toHaveLength(1);
  });
});
