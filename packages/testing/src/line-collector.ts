import { Writable } from 'node:stream';

/** A stream that keeps every line written to it, for a logger under test to write into. */
export function lineCollector(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}
