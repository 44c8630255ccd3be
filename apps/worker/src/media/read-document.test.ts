import { inflatingPdf, minimalPdf } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { MediaRefusal } from './download-media.js';
import { PdfUnreadable, pdfText } from './pdf-text.js';
import { readDocument } from './read-document.js';

const signal = new AbortController().signal;
const Q3 = minimalPdf(['Quarterly revenue rose 12 percent.', 'Costs fell in every region.']);
const read = (bytes: Buffer, name: string, mime: string | undefined, maxChars = 50_000) =>
  readDocument(bytes, { kind: 'document', ref: 'x', name }, mime, { maxChars, signal });

async function refusalOf(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaRefusal);
  return (err as MediaRefusal).problem;
}

describe('readDocument', () => {
  it('reads a PDF’s text page by page, and names its pages in the placeholder', async () => {
    const doc = await read(Q3, 'q3.pdf', 'application/pdf');
    expect(doc.text).toBe('[document: q3.pdf, 2 pages]\nQuarterly revenue rose 12 percent.\n\nCosts fell in every region.');
    expect(doc.memo).toBe('[document: q3.pdf, 2 pages] Quarterly revenue rose 12 percent. Costs fell in every region.');
  });

  it('cuts the text at maxChars and says so to the model; memory keeps the first 200 characters', async () => {
    const csv = `region,revenue\n${Array.from({ length: 200 }, (_, i) => `r${i},${i * 10}`).join('\n')}\n`;
    const doc = await read(Buffer.from(csv), 'sales.csv', undefined, 100);
    expect(doc.text).toBe(`[document: sales.csv]\n${csv.slice(0, 100)}\n[… cut at 100 characters]`);
    expect(doc.memo).toBe(`[document: sales.csv] ${csv.trim().replace(/\s+/g, ' ').slice(0, 200)}…`);
  });

  it('reads plain text and Markdown as UTF-8 (a byte-order mark dropped)', async () => {
    const md = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Notes\n\nCafé at 9.')]);
    expect((await read(md, 'notes.md', undefined)).text).toBe('[document: notes.md]\n# Notes\n\nCafé at 9.');
  });

  it('refuses a truncated PDF and a PDF of garbage as unreadable', async () => {
    expect(await refusalOf(read(Q3.subarray(0, Math.floor(Q3.length / 2)), 'cut.pdf', 'application/pdf'))).toBe('unreadable');
    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 0x5a)]);
    expect(await refusalOf(read(garbage, 'junk.pdf', 'application/pdf'))).toBe('unreadable');
  });

  it('refuses bytes that are not text (not UTF-8, or holding NUL bytes) as a kind it cannot read', async () => {
    expect(await refusalOf(read(Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3]), 'data.txt', undefined))).toBe('unsupported');
    expect(await refusalOf(read(Buffer.from('a\u0000b'), 'data.txt', undefined))).toBe('unsupported');
  });
});

describe('pdfText', () => {
  it('stops a PDF that is not read within its bound: the thread is terminated and the file refused', async () => {
    // A bound too short for any PDF (the thread alone takes longer to start): the refusal comes from the bound.
    await expect(pdfText(Q3, { maxChars: 1_000, timeoutMs: 1 })).rejects.toBeInstanceOf(PdfUnreadable);
    await expect(pdfText(Q3, { maxChars: 1_000, timeoutMs: 1 })).rejects.toThrow(/not read within 1 ms/);
  });

  it('stops a PDF whose stream inflates past the growth bound (a zip bomb), however fast it reads', async () => {
    // 200 MB of spaces, 200 kB on the wire; a 32 MB bound here (512 MB in service).
    const bomb = inflatingPdf(200_000_000);
    await expect(pdfText(bomb, { maxChars: 1_000, growthBytes: 32 * 1024 * 1024 })).rejects.toThrow(/grew past 32 MB/);
  });

  it('is cancelled with the job', async () => {
    const controller = new AbortController();
    const reading = pdfText(Q3, { maxChars: 1_000, signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(reading).rejects.toThrow('job cancelled');
  });
});
