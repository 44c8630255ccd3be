import { type ChatCompletionRequest, invalidRequest } from '@switchboard/protocol';
import { z } from 'zod';

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

const functionSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
const namedChoiceSchema = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) });

/** A tool with no parameters still needs an object schema on Anthropic's side. */
const NO_PARAMETERS = { type: 'object', properties: {} };

/**
 * OpenAI `tools`, `tool_choice` and `parallel_tool_calls` → Anthropic `tools` and
 * `tool_choice`. Only function tools exist on both sides; any other kind is a 400 rather than
 * silently dropped, since the model would then never call it.
 */
export function convertTools(request: ChatCompletionRequest): { tools?: AnthropicTool[]; tool_choice?: AnthropicToolChoice } {
  if (!request.tools?.length) return {};
  const tools = request.tools.map((tool, k): AnthropicTool => {
    if (tool.type !== 'function')
      throw invalidRequest(`Tools of type '${tool.type}' are not supported here.`, `tools[${k}].type`);
    const fn = functionSchema.safeParse(tool.function);
    if (!fn.success) throw invalidRequest('A function tool needs a name and an object of parameters.', `tools[${k}].function`);
    const { name, description, parameters } = fn.data;
    return { name, ...(description ? { description } : {}), input_schema: parameters ?? NO_PARAMETERS };
  });
  const choice = convertToolChoice(request);
  return { tools, ...(choice ? { tool_choice: choice } : {}) };
}

function convertToolChoice(request: ChatCompletionRequest): AnthropicToolChoice | undefined {
  const choice = request.tool_choice;
  if (choice === 'none') return { type: 'none' };
  // Anthropic states "no parallel calls" on the choice; OpenAI has a separate flag for it.
  const serial = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'required') return { type: 'any', ...serial };
  if (choice && typeof choice === 'object') {
    const named = namedChoiceSchema.safeParse(choice);
    if (!named.success) throw invalidRequest("tool_choice must be 'none', 'auto', 'required' or a function.", 'tool_choice');
    return { type: 'tool', name: named.data.function.name, ...serial };
  }
  if (choice === 'auto' || request.parallel_tool_calls === false) return { type: 'auto', ...serial };
  return undefined;
}
