/**
 * A `Retry-After` value (delay seconds, possibly fractional, or an HTTP date) as milliseconds
 * from `now`; undefined when absent or unreadable. Upstream retries and channel back-off share it.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
