import { describe, expect, it } from 'vitest';
import { markdownToWhatsApp } from './whatsapp-text.js';

describe('markdownToWhatsApp', () => {
  it('writes bold, italic and strikethrough with WhatsApp’s single markers', () => {
    expect(markdownToWhatsApp('**Bold move**, *quietly*, ~~not this~~')).toBe('*Bold move*, _quietly_, ~not this~');
  });

  it('shows a link as its label and address, and a bare address once', () => {
    expect(markdownToWhatsApp('[the docs](https://example.com/d) or https://example.com/e')).toBe(
      'the docs (https://example.com/d) or https://example.com/e',
    );
  });

  it('puts code in triple backticks, the only monospace WhatsApp documents, and drops the language', () => {
    expect(markdownToWhatsApp('Run `npm test`:\n\n```sh\nnpm test\n```')).toBe('Run ```npm test```:\n\n```\nnpm test\n```');
  });

  it('turns headings bold, keeps lists and quotes readable, and leaves < > & as written', () => {
    expect(markdownToWhatsApp('# Plan\n\n- a < b & c\n- d\n\n> said')).toBe('*Plan*\n\n• a < b & c\n• d\n\n> said');
  });
});
