import type { Writable } from 'node:stream';
import { configure } from 'safe-stable-stringify';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { batchedStdout } from './batched-stdout.js';
import { createRedactor } from './redact.js';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  /** Values that must never be written (provider keys, hook tokens…). */
  secrets?: readonly string[];
  /** Fields added to every line, e.g. `{ service: 'api' }`. */
  defaultMeta?: Record<string, unknown>;
  /** Where lines go. @defaultValue stdout, batched per event-loop turn */
  stream?: Writable;
}

/** What winston writes: the formatted line sits under this symbol (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

/**
 * winston's json format, configured once: `format.json()` configures safe-stable-stringify anew
 * for every line, which was most of what a request's log line cost. Same output: keys sorted,
 * BigInts as strings.
 */
const stringify = configure({});
const bigIntAsString = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * winston's Stream transport without its per-line extra: it schedules a `setImmediate` for every
 * line only to emit `'logged'`, which nothing here listens to. The formatted line goes straight
 * to the stream.
 */
class LineTransport extends TransportStream {
  readonly #stream: Writable;
  constructor(stream: Writable) {
    super();
    this.#stream = stream;
  }
  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.#stream.write(`${info[MESSAGE] as string}\n`);
    next();
  }
}

/** One JSON object per line, secrets scrubbed at every level. */
export function createLogger(options: LoggerOptions): Logger {
  const { scrub } = createRedactor(options.secrets ?? []);
  // Timestamp, scrub and serialise in one step (one format, not three).
  const line = winston.format((info) => {
    const record = info as Record<string | symbol, unknown>;
    if (!record.timestamp) record.timestamp = new Date().toISOString();
    for (const key of Object.keys(record)) record[key] = scrub(record[key]);
    record[MESSAGE] = stringify(record, bigIntAsString);
    return info;
  });
  return winston.createLogger({
    level: options.level,
    defaultMeta: options.defaultMeta,
    format: winston.format.combine(winston.format.errors({ stack: true }), line()),
    transports: [new LineTransport(options.stream ?? batchedStdout())],
  });
}
