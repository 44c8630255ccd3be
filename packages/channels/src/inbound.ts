import { checkJsonDepth, HOOK_MAX_JSON_DEPTH, invalidRequest } from '@switchboard/protocol';
import type { z } from 'zod';
import type { HttpAnswer, InboundRequest } from './definition.js';

/** One header's value, looked up case-insensitively; a repeated header yields its first value. */
export function headerValue(headers: InboundRequest['headers'], name: string): string | undefined {
  const wanted = name.toLowerCase();
  let value = headers[wanted];
  if (value === undefined) {
    // Node lowercases header names, but callers building requests by hand may not.
    for (const [key, candidate] of Object.entries(headers)) {
      if (key.toLowerCase() === wanted) {
        value = candidate;
        break;
      }
    }
  }
  return Array.isArray(value) ? value[0] : value;
}

/** Parses the raw body as JSON, or throws a 400. */
export function parseJsonBody(rawBody: Buffer): unknown {
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw invalidRequest('The request body is not valid JSON.', null, 'invalid_json');
  }
  checkJsonDepth(value, HOOK_MAX_JSON_DEPTH);
  return value;
}

/**
 * Validates `value` against `schema`, or throws a 400 naming the first offending field.
 *
 * @param at - Where `value` sits in the body, prefixed to the field's name (`entry.0.changes.1`).
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, at: readonly PropertyKey[] = []): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...at, ...(issue?.path ?? [])];
  const param = path.length > 0 ? path.map(String).join('.') : null;
  const detail = issue?.message ?? 'invalid input';
  throw invalidRequest(param ? `Invalid '${param}': ${detail}` : `Invalid request body: ${detail}`, param);
}

/** The answer platforms expect for events we accept but do not act on. */
export function okAnswer(): HttpAnswer {
  return { status: 200, body: { ok: true } };
}
