/**
 * JSON with every object's keys sorted, so that two requests that differ only in key order (or
 * in members set to undefined) give the same text, and so the same cache key.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null); // a "__proto__" key stays a key
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}
