/**
 * stdout for log lines, written once per event-loop turn instead of once per line: under load a
 * write per request line cost more than everything else the logger does (~50 µs of ~440 µs per
 * request in `npm run bench`). Lines are flushed at the end of each turn and on exit, so nothing
 * is held back long and nothing is lost when the process ends. Not a stream: a line is one push
 * onto the batch, not a stream write and the tick its callback costs.
 */
export function batchedStdout(out: NodeJS.WritableStream = process.stdout): { write(line: string): void } {
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
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}
