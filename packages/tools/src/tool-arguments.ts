import type { ToolOutput } from './tool-output.js';

/** A tool call's `arguments` (a JSON string, as OpenAI sends them) as an object; null when they are not one. */
export function toolArguments(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What the model is told for a call whose `arguments` are not a JSON object (nothing is run). */
export const ARGUMENTS_NOT_AN_OBJECT: Readonly<ToolOutput> = Object.freeze({
  text: 'Error: the arguments must be a JSON object.',
  isError: true,
});
