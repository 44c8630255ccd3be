import { Writable } from 'node:stream';

/**
 * stdout for log lines, written once per event-loop turn instead of once per line: under load a
 * write per request line cost more than everything else the logger does (~50 µs of ~440 µs per
 * request in `npm run bench`). Lines are flushed at the end of each turn and on exit, so nothing
 * is held back long and nothing is lost when the process ends.
 */
export function batchedStdout(out: NodeJS.WritableStream = process.stdout): Writable {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    out.write(text); // stdout to a file or pipe is synchronous on Linux: ordered, and out by exit
  };
  process.once('exit', flush);
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      pending.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      done();
    },
    final(done) {
      flush();
      done();
    },
  });
}
