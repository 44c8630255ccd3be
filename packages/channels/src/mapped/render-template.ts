import { invalidRequest } from '@switchboard/protocol';
import Mustache from 'mustache';
import { z } from 'zod';

/**
 * Mustache, logic-less: a template only looks values up in the payload (`{{pull_request.title}}`,
 * sections over lists), never runs code. Prompts are plain text, so nothing is HTML-escaped.
 */
const PLAIN = { escape: (value: unknown) => String(value) };

/**
 * Renders `template` with the payload's values; a missing value (or null) renders as nothing.
 *
 * @throws AppError 400 should a payload still trip the engine up.
 */
export function renderTemplate(template: string, view: unknown): string {
  try {
    return Mustache.render(template, withoutNulls(view), {}, PLAIN);
  } catch {
    throw invalidRequest('The template could not be rendered from this payload.', 'template');
  }
}

/**
 * Nulls as empty strings: the same to a template (both falsy, both render as nothing), and
 * Mustache reads properties of a null list item (`{{#alerts}}{{title}}{{/alerts}}` over `[null]`) and throws.
 */
function withoutNulls(value: unknown): unknown {
  if (value === null) return '';
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, withoutNulls(item)]));
  }
  return value;
}

/** A config string that must be a well-formed Mustache template (checked at start-up). */
export function templateSchema() {
  return z.string().superRefine((template, context) => {
    try {
      Mustache.parse(template);
    } catch (err) {
      context.addIssue({ code: 'custom', message: `not a valid Mustache template: ${(err as Error).message}` });
    }
  });
}

/** Whether a config string holds a template tag, so its value is only known per delivery. */
export function isTemplated(value: string): boolean {
  return value.includes('{{');
}
