import { type ChatCompletionRequest, invalidRequest } from '@switchboard/protocol';
import { z } from 'zod';
import type { AnthropicTool, AnthropicToolChoice } from './convert-tools.js';

const jsonSchemaFormat = z.looseObject({
  type: z.literal('json_schema'),
  json_schema: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
  }),
});

/**
 * `response_format: json_schema` has no field in the Messages API; the way that works on every
 * Claude model is one tool whose input schema is the format, and a tool_choice that forces it:
 * the tool's input is then the JSON answer (convert-response and convert-stream turn it back
 * into text). Returns the name of that tool, or undefined when no schema is asked for.
 */
export function formatToolName(request: ChatCompletionRequest): string | undefined {
  const parsed = jsonSchemaFormat.safeParse(request.response_format);
  return parsed.success ? parsed.data.json_schema.name : undefined;
}

export function convertFormat(request: ChatCompletionRequest): { tools?: AnthropicTool[]; tool_choice?: AnthropicToolChoice } {
  if (request.response_format?.type !== 'json_schema') return {};
  const parsed = jsonSchemaFormat.safeParse(request.response_format);
  if (!parsed.success) {
    throw invalidRequest('A json_schema response_format needs json_schema.name and json_schema.schema.', 'response_format');
  }
  if (request.tools?.length) {
    throw invalidRequest('Anthropic models take a json_schema response_format only without tools.', 'response_format');
  }
  const { name, description, schema } = parsed.data.json_schema;
  return {
    tools: [
      {
        name,
        description: description ?? 'Give the answer as this tool’s input: JSON in the required schema.',
        input_schema: schema,
      },
    ],
    tool_choice: { type: 'tool', name },
  };
}
