import type { Writable } from 'node:stream';
import { configure } from 'safe-stable-stringify';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { batchedStdout } from './batched-stdout.js';
import { isoTimestamp, stringifyFlat } from './flat-line.js';
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

/** Where winston keeps a line's level (triple-beam's LEVEL). */
const LEVEL = Symbol.for('level');

/** A value the replacer above would pass through unchanged at any depth: a line of only these needs none. */
const isFlat = (value: unknown) => value === null || (typeof value !== 'object' && typeof value !== 'bigint');

/** Where lines go: a Writable, or the batched stdout (any `write(line)`). */
interface LineSink {
  write(line: string): unknown;
}

/** What of winston's logger stream the direct write below reads (winston's own fields). */
interface LoggerStream {
  silent?: boolean;
  levels: Record<string, number>;
  level: string;
  transports: unknown[];
  format: winston.Logform.Format;
}

/**
 * winston's Stream transport without its per-line extra: it schedules a `setImmediate` for every
 * line only to emit `'logged'`, which nothing here listens to. The formatted line goes straight
 * to the stream.
 */
class LineTransport extends TransportStream {
  readonly #stream: LineSink;
  constructor(stream: LineSink) {
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
    if (!record.timestamp) record.timestamp = isoTimestamp();
    let flat = true;
    for (const key of Object.keys(record)) {
      const value = scrub(record[key]);
      record[key] = value;
      if (flat && !isFlat(value)) flat = false;
    }
    // A flat line (the request line) has nothing for the replacer to change, nor anything for
    // safe-stable-stringify's walk to find: the same bytes come from stringifyFlat.
    record[MESSAGE] = flat ? stringifyFlat(record as Record<string, unknown>, stringify) : stringify(record, bigIntAsString);
    return info;
  });
  const transport = new LineTransport(options.stream ?? batchedStdout());
  const logger = winston.createLogger({
    level: options.level,
    defaultMeta: options.defaultMeta,
    format: winston.format.combine(winston.format.errors({ stack: true }), line()),
    transports: [transport],
  });
  writeDirectly(logger, transport);
  return logger;
}

/**
 * winston's logger is an object-mode stream piped into its transports: a line passes two
 * readable-stream hops (the logger's transform, the transport's write) and their bookkeeping, and
 * is formatted even below the level, where the transport then drops it. While `transport` is the
 * only one, a line goes from the level check and the format straight to it instead: the same
 * checks (silent, level, an `exception` line the transport does not handle), format and output.
 * A transport added later, or a removed one, sends lines the stream way again.
 */
function writeDirectly(logger: Logger, transport: LineTransport): void {
  const stream = logger as unknown as LoggerStream;
  const piped = logger.write.bind(logger);
  const written = () => {};
  logger.write = ((info: winston.LogEntry & Record<symbol, unknown>) => {
    const { transports } = stream;
    if (transports.length !== 1 || transports[0] !== transport) return piped(info);
    if (stream.silent || transport.silent) return true;
    if (!info[LEVEL]) info[LEVEL] = info.level;
    const level = stream.levels[info[LEVEL] as string];
    if (level === undefined) return piped(info); // winston's own warning for an unknown level
    if ((info as { exception?: unknown }).exception === true && !transport.handleExceptions) return true;
    const threshold = transport.level || stream.level;
    if (threshold && !((stream.levels[threshold] ?? Number.NaN) >= level)) return true; // the transport's own test
    const formatted = stream.format.transform(info, stream.format.options);
    if (formatted) transport.log(formatted as Record<string | symbol, unknown>, written);
    return true;
  }) as Logger['write'];
}
