import type { MediaRef } from '@switchboard/protocol';
import { MediaRefusal } from './download-media.js';
import { PdfUnreadable, pdfText } from './pdf-text.js';

/** How much of a document memory keeps after its placeholder. */
const MEMO_CHARS = 200;

/** A document as text: for the model (its placeholder, then its text, cut) and for memory (placeholder and first lines). */
export interface DocumentText {
  text: string;
  memo: string;
}

/**
 * Reads a document's text: a PDF (the bytes say so) with pdfjs-dist, in a thread bounded in time
 * and heap (pdf-text.ts); anything else must be UTF-8 text — plain text, Markdown, CSV — which
 * has no signature to sniff, so bytes that do not decode, or hold NUL bytes, are refused as a
 * kind of file the bot cannot read. Cut at `maxChars`, saying so to the model.
 */
export async function readDocument(
  bytes: Buffer,
  ref: MediaRef,
  sniffedMime: string | undefined,
  { maxChars, signal }: { maxChars: number; signal: AbortSignal },
): Promise<DocumentText> {
  let text: string;
  let pages: number | undefined;
  if (sniffedMime === 'application/pdf') {
    try {
      ({ text, pages } = await pdfText(bytes, { maxChars, signal }));
    } catch (err) {
      if (err instanceof PdfUnreadable) throw new MediaRefusal('unreadable', err.message);
      throw err;
    }
  } else if (sniffedMime === undefined) {
    text = utf8Text(bytes);
  } else {
    throw new MediaRefusal('unsupported', 'not a document type the bot reads');
  }
  const name = ref.name ?? (pages === undefined ? 'document' : 'document.pdf');
  const placeholder = `[document: ${name}${pages === undefined ? '' : `, ${pages} ${pages === 1 ? 'page' : 'pages'}`}]`;
  const whole = text.trim();
  const cut = whole.length > maxChars ? `${whole.slice(0, maxChars)}\n[… cut at ${maxChars} characters]` : whole;
  const flat = whole.replace(/\s+/g, ' ');
  const firstLines = flat.length > MEMO_CHARS ? `${flat.slice(0, MEMO_CHARS)}…` : flat;
  return { text: `${placeholder}\n${cut}`, memo: [placeholder, firstLines].filter(Boolean).join(' ') };
}

/** UTF-8 text (a byte-order mark dropped), or a refusal: a binary file is not a document. */
function utf8Text(bytes: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new MediaRefusal('unsupported', 'not UTF-8 text');
  }
  if (text.includes('\u0000')) throw new MediaRefusal('unsupported', 'binary, not text');
  return text;
}
