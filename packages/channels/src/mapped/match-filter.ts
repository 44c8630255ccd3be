import { z } from 'zod';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** One value, or a list of which any may match. */
const wanted = z.union([scalar, z.array(scalar).min(1)]);

/**
 * Which deliveries a mapped hook acts on, as data (no expressions): every listed header must have
 * one of its values, every listed body path (dot-separated, `pull_request.draft`) one of its.
 */
export const filterSchema = z.strictObject({
  header: z.record(z.string().min(1), z.union([z.string(), z.array(z.string()).min(1)])).optional(),
  body: z.record(z.string().min(1), wanted).optional(),
});

export type MappedFilter = z.infer<typeof filterSchema>;

/** True when the delivery passes every condition of the filter (no filter: all pass). */
export function matchesFilter(filter: MappedFilter | undefined, request: InboundRequest, body: unknown): boolean {
  if (!filter) return true;
  for (const [name, values] of Object.entries(filter.header ?? {})) {
    const actual = headerValue(request.headers, name);
    if (actual === undefined || !toList(values).includes(actual.trim())) return false;
  }
  for (const [path, values] of Object.entries(filter.body ?? {})) {
    const actual = valueAt(body, path);
    if (actual === undefined || !toList(values).some((value) => value === actual)) return false;
  }
  return true;
}

/** The value at a dot-separated path of a JSON value; undefined when any step is missing. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const step of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

function toList<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}
