/**
 * A tool's result as the model reads it: the text of its content, other content named rather
 * than inlined, and cut at `maxChars` with a note that says so (a tool that returns megabytes
 * must not fill the model's context or the job hash).
 */
export interface ToolOutput {
  text: string;
  /** The server said the call failed (`isError`), or it never completed (time-out, crash, refusal). */
  isError: boolean;
}

/** Content items as MCP's CallToolResult has them (text, image, audio, resource, resource_link). */
interface ContentItem {
  type: string;
  text?: unknown;
  [extra: string]: unknown;
}

export const DEFAULT_MAX_OUTPUT_CHARS = 16_000;

export function toolOutput(result: Record<string, unknown>, maxChars: number): ToolOutput {
  const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  // Each item as it is read: the result is checked for being an object only (McpServers).
  const parts = items.map((item) =>
    typeof item !== 'object' || item === null
      ? '[unreadable content]'
      : item.type === 'text' && typeof item.text === 'string'
        ? item.text
        : `[${typeof item.type === 'string' ? item.type : 'unknown'} content]`,
  );
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return { text: capped(parts.join('\n'), maxChars), isError: result.isError === true };
}

export function toolError(message: string): ToolOutput {
  return { text: `Error: ${message}`, isError: true };
}

export function capped(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[output cut: ${maxChars} of ${text.length} characters shown]`;
}
