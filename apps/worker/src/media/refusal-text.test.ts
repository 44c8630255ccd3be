import { describe, expect, it } from 'vitest';
import { refusalText } from './refusal-text.js';
import { clock } from './transcribe-audio.js';

const none = { images: false, audio: false, documents: false };

describe('refusalText', () => {
  it('names the kinds of file the hook takes when a file is of another kind', () => {
    const text = (takes: typeof none) => refusalText({ refused: 'unsupported', maxBytes: 1, takes });
    expect(text({ ...none, images: true })).toBe(
      'Sorry, I cannot read that kind of file; I can look at JPEG, PNG, GIF and WebP images.',
    );
    expect(text({ images: true, audio: true, documents: true })).toBe(
      'Sorry, I cannot read that kind of file; I can look at JPEG, PNG, GIF and WebP images, listen to voice notes and audio, and read PDF, text, Markdown and CSV documents.',
    );
    expect(text(none)).toBe('Sorry, I cannot read that kind of file.');
  });

  it('states the size limit in whole megabytes', () => {
    expect(refusalText({ refused: 'too-big', maxBytes: 20_000_000, takes: none })).toMatch(/the limit is 20 MB/);
    expect(refusalText({ refused: 'too-big', maxBytes: 1_000, takes: none })).toMatch(/the limit is 1 MB/);
  });
});

describe('clock', () => {
  it('shows a voice note’s length as minutes and seconds, hours when it has them', () => {
    expect(clock(14)).toBe('0:14');
    expect(clock(725.4)).toBe('12:05');
    expect(clock(3723)).toBe('1:02:03');
  });
});
