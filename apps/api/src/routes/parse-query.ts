import { formatParam, invalidRequest } from '@switchboard/protocol';
import type { z } from 'zod';

/** A query string through its schema: a 400 naming the first wrong parameter in `param`. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string | string[] | undefined>): z.output<S> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = formatParam(issue.path) || (issue.code === 'unrecognized_keys' ? issue.keys[0] : null);
  throw invalidRequest(
    param ? `Invalid query parameter '${param}': ${issue.message}` : issue.message,
    param ?? null,
    'invalid_value',
  );
}
