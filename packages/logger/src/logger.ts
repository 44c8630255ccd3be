import type { Writable } from 'node:stream';
import winston from 'winston';
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

/** One JSON object per line, secrets scrubbed at every level. */
export function createLogger(options: LoggerOptions): Logger {
  const { scrub } = createRedactor(options.secrets ?? []);
  const redact = winston.format((info) => {
    for (const key of Object.keys(info)) {
      (info as Record<string, unknown>)[key] = scrub((info as Record<string, unknown>)[key]);
    }
    return info;
  });
  return winston.createLogger({
    level: options.level,
    defaultMeta: options.defaultMeta,
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      winston.format.timestamp(),
      redact(),
      winston.format.json(),
    ),
    transports: [new winston.transports.Stream({ stream: options.stream ?? batchedStdout() })],
  });
}
