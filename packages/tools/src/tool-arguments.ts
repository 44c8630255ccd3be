/** A tool call's `arguments` (a JSON string, as OpenAI sends them) as an object; null when they are not one. */
export function toolArguments(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
