/**
 * A line whose values are all flat (strings, numbers, booleans, null; undefined left out) as
 * JSON with its keys sorted: the bytes safe-stable-stringify writes for it (its string escape is
 * JSON.stringify's, its numbers `String(n)` or `null`), from V8's own JSON.stringify of a copy
 * with the keys put in sorted order, instead of safe-stable-stringify's walk in JavaScript. A key
 * that starts with a digit could be an array index, which an object lists first whatever the
 * order it was set in, and `__proto__`, which setting would not make a key: a line with either
 * is left to `fallback`. The request line is a flat line.
 */
export function stringifyFlat(record: Record<string, unknown>, fallback: (record: object) => string): string {
  const sortedKeys = sortedKeysOf(Object.keys(record));
  if (!sortedKeys) return fallback(record);
  const sorted: Record<string, unknown> = {};
  for (const key of sortedKeys) sorted[key] = record[key];
  return JSON.stringify(sorted);
}

/** The last line's keys as they came and sorted: lines of one shape (the request line) sort once. */
let lastKeys: readonly string[] = [];
let lastSorted: readonly string[] | null = null;

function sortedKeysOf(keys: string[]): readonly string[] | null {
  if (keys.length === lastKeys.length && keys.every((key, i) => key === lastKeys[i])) return lastSorted;
  lastKeys = [...keys];
  const unsafe = keys.some((key) => (key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) || key === '__proto__');
  lastSorted = unsafe ? null : keys.sort();
  return lastSorted;
}

/**
 * `new Date(now).toISOString()`, made once per millisecond from its date and time to the second,
 * made once per second: under load a line comes every millisecond or so, and a Date and its ISO
 * string every millisecond cost the request line about 2 µs of CPU in `perf` samples.
 */
export function isoTimestamp(now = Date.now()): string {
  if (now === lastMs) return lastIso;
  lastMs = now;
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    const iso = new Date(second * 1000).toISOString(); // …T12:34:56.000Z
    lastSecondIso = iso.slice(0, iso.length - 4);
  }
  const ms = now - second * 1000;
  lastIso = lastSecondIso + (ms < 10 ? `00${ms}Z` : ms < 100 ? `0${ms}Z` : `${ms}Z`);
  return lastIso;
}
let lastMs = Number.NaN;
let lastIso = '';
let lastSecond = Number.NaN;
let lastSecondIso = '';
