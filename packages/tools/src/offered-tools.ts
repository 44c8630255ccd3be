/**
 * Which tools a hook's bot is offered, and under which names. A grant is `"<server>"` (all its
 * tools) or `"<server>/<tool>"`. The model sees each tool as an OpenAI function named
 * `<server>__<tool>` (function names are `[A-Za-z0-9_-]{1,64}`, so other characters become `_`);
 * the table maps a name the model calls back to the server and tool, and a name it does not hold
 * is not granted.
 */
export interface ToolInfo {
  name: string;
  description?: string | undefined;
  /** The tool's input JSON Schema, as the server listed it. */
  inputSchema: Record<string, unknown>;
}

export interface OfferedTool {
  /** The function name the model is given. */
  name: string;
  server: string;
  tool: string;
  description?: string | undefined;
  parameters: Record<string, unknown>;
}

/**
 * OpenAI's `tools` entry for an offered tool (the providers translate it for Anthropic). A type
 * alias, not an interface: it must fit the request schema's open (index-signature) objects.
 */
export type FunctionTool = {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
};

export function functionName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export function isGranted(grants: readonly string[], server: string, tool: string): boolean {
  return grants.includes(server) || grants.includes(`${server}/${tool}`);
}

/** The granted tools of the servers' current lists, by the name the model calls them. */
export function offeredTools(
  grants: readonly string[],
  lists: ReadonlyMap<string, readonly ToolInfo[]>,
): Map<string, OfferedTool> {
  const offered = new Map<string, OfferedTool>();
  for (const [server, tools] of lists) {
    for (const tool of tools) {
      if (!isGranted(grants, server, tool.name)) continue;
      const name = functionName(server, tool.name);
      if (offered.has(name)) continue; // two tools whose names differ only in characters OpenAI refuses: the first wins
      offered.set(name, { name, server, tool: tool.name, description: tool.description, parameters: tool.inputSchema });
    }
  }
  return offered;
}

export function asFunctionTool(tool: OfferedTool): FunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters },
  };
}
