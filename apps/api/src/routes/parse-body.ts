import { checkJsonDepth, formatParam, invalidRequest } from '@switchboard/protocol';
import type { z } from 'zod';

/**
 * A /v1 body through its schema: a JSON object no deeper than `maxDepth`, else a 400 naming the
 * first wrong field in `param` (`messages[0].role`, `input[2].call_id`). `plain`, when given,
 * recognises a body the schema would return unchanged (the common request), which then skips it.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  maxDepth: number,
  expected: string,
  plain?: (body: unknown) => body is z.output<S>,
): z.output<S> {
  checkJsonDepth(body, maxDepth);
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest(`The request body must be a JSON object with ${expected}.`);
  }
  if (plain?.(body)) return body;
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = formatParam(issue.path);
  throw invalidRequest(param ? `Invalid value for '${param}': ${issue.message}` : issue.message, param, 'invalid_value');
}

/** 400 `too_many_messages`: more turns than `limits.maxMessages` in one request. */
export function tooManyMessages(limit: number, param: string): Error {
  return invalidRequest(`At most ${limit} messages are accepted in one request.`, param, 'too_many_messages');
}
