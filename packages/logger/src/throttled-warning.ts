import type { Logger } from './logger.js';

/**
 * A warning logged at most once per `everyMs`: for a dependency that fails on every request
 * while it is away (Redis), one line says so instead of thousands.
 */
export function throttledWarning(logger: Logger, message: string, everyMs = 10_000): (err: unknown) => void {
  let last = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    logger.warn(message, { error: err instanceof Error ? err.message : String(err) });
  };
}
