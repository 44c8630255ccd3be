import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The longest a PDF's text may take to read; past it the thread is terminated and the file refused. */
export const PDF_PARSE_MS = 15_000;
/** The heap a PDF's thread may use (its JavaScript objects). */
const PDF_HEAP_MB = 256;
/**
 * How much the process may grow while a PDF is read: a stream that inflates without end (a zip
 * bomb) grows typed arrays, which live outside the heap limit, so the process's RSS is watched.
 */
export const PDF_GROWTH_BYTES = 512 * 1024 * 1024;
const GROWTH_POLL_MS = 20;

/** pdfjs-dist's Node build (the legacy one: no DOM, no canvas needed for text), as a URL a thread imports. */
const PDFJS_URL = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;

/**
 * The thread's code: open the PDF with pdfjs, read page after page until `maxChars` is passed,
 * post `{ text, pages }` (or `{ failed }`, the exception's name only). Kept as source text so the
 * same code runs from `src` (tests) and `dist` without a build step for a second entry file.
 * pdfjs "fakes" its own worker in Node, so the parsing happens here, in this thread.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const pdfjs = await import(workerData.pdfjs);
  const task = pdfjs.getDocument({
    data: workerData.bytes, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false,
  });
  const doc = await task.promise;
  const pages = [];
  let length = 0;
  for (let n = 1; n <= doc.numPages && length <= workerData.maxChars; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    const line = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\\n' : '') : '')).join('');
    pages.push(line);
    length += line.length;
  }
  parentPort.postMessage({ text: pages.join('\\n\\n'), pages: doc.numPages });
  await task.destroy();
})().catch((err) => parentPort.postMessage({ failed: String((err && err.name) || 'Error') }));
`;

/** A PDF whose text could not be read: broken, encrypted, too big for its heap, or too slow. */
export class PdfUnreadable extends Error {
  override readonly name = 'PdfUnreadable';
}

/**
 * The text of a PDF (at least `maxChars` of it when it has that many; the caller cuts) and its
 * page count, read by pdfjs-dist in a worker thread of its own: pdfjs cannot be cancelled mid-page,
 * so a file that never ends parsing is stopped by terminating the thread after `timeoutMs`, one
 * that inflates without end once the process has grown by `growthBytes` (or the thread's heap
 * limit is reached); the worker's own event loop never waits on it.
 */
export function pdfText(
  bytes: Uint8Array,
  {
    maxChars,
    timeoutMs = PDF_PARSE_MS,
    growthBytes = PDF_GROWTH_BYTES,
    signal,
  }: { maxChars: number; timeoutMs?: number; growthBytes?: number; signal?: AbortSignal },
): Promise<{ text: string; pages: number }> {
  return new Promise((resolve, reject) => {
    // A copy the thread owns (transferred, not cloned twice); the caller's buffer is left alone.
    const copy = new Uint8Array(bytes);
    const thread = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { pdfjs: PDFJS_URL, bytes: copy, maxChars },
      transferList: [copy.buffer],
      resourceLimits: { maxOldGenerationSizeMb: PDF_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      void thread.terminate();
      outcome();
    };
    const onAbort = () => finish(() => reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled')));
    const timer = setTimeout(() => finish(() => reject(new PdfUnreadable(`not read within ${timeoutMs} ms`))), timeoutMs);
    const startRss = process.memoryUsage.rss();
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() - startRss > growthBytes)
        finish(() => reject(new PdfUnreadable(`grew past ${Math.round(growthBytes / 1_048_576)} MB while reading`)));
    }, GROWTH_POLL_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    thread.on('message', (answer: { text?: string; pages?: number; failed?: string }) => {
      if (typeof answer.text === 'string' && typeof answer.pages === 'number') {
        const { text, pages } = answer;
        finish(() => resolve({ text, pages }));
      } else finish(() => reject(new PdfUnreadable(`pdfjs: ${answer.failed ?? 'no answer'}`)));
    });
    thread.on('error', (err) => finish(() => reject(new PdfUnreadable(`the PDF thread stopped (${err.name})`))));
    thread.on('exit', (code) => finish(() => reject(new PdfUnreadable(`the PDF thread exited (${code})`))));
  });
}
