import { z } from 'zod';

/**
 * POST /v1/responses request, as far as this gateway serves it: the parts that translate onto a
 * chat completion. Items and tools are checked in two steps (any `type`, then the schema of that
 * type) so that a wrong field is named precisely (`input[2].call_id`) and an item type served
 * nowhere here is refused by name rather than as "invalid union".
 */
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish();

const inputTextPart = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const outputTextPart = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const inputImagePart = z.looseObject({
  type: z.literal('input_image'),
  image_url: nullable(z.string().min(1)),
  file_id: nullable(z.string()),
  detail: nullable(z.string()),
});
const contentParts = {
  input_text: inputTextPart,
  output_text: outputTextPart,
  refusal: refusalPart,
  input_image: inputImagePart,
};

export type ResponsesContentPart = z.infer<(typeof contentParts)[keyof typeof contentParts]>;

const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: stringOr(z.array(byType(contentParts, 'content parts')), 'a list of content parts'),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: stringOr(z.array(byType(contentParts, 'content parts')), 'a list of content parts'),
});
/** An earlier answer's MCP items sent back as input (openai-node v6 `ResponseInputItem.McpCall`/`McpListTools`). */
const mcpCallItem = z.looseObject({
  type: z.literal('mcp_call'),
  id: z.string().min(1),
  server_label: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  output: nullable(z.string()),
  error: nullable(z.string()),
});
const mcpListToolsItem = z.looseObject({ type: z.literal('mcp_list_tools'), server_label: z.string() });
const inputItems = {
  message: messageItem,
  function_call: functionCallItem,
  function_call_output: functionCallOutputItem,
  mcp_call: mcpCallItem,
  mcp_list_tools: mcpListToolsItem,
};

export type ResponsesInputItem = z.infer<(typeof inputItems)[keyof typeof inputItems]>;

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1).max(128),
  description: nullable(z.string()),
  parameters: nullable(z.record(z.string(), z.unknown())),
  strict: nullable(z.boolean()),
});

export type ResponsesFunctionTool = z.infer<typeof functionTool>;

/**
 * OpenAI's remote MCP tool (openai-node v6 `Tool.Mcp`, resources/responses/responses.d.ts). Parsed
 * as sent: which of its fields this gateway takes (a configured `server_label`, `allowed_tools`,
 * `require_approval: "never"`) is decided where the servers are known (apps/api responses-mcp).
 */
const mcpTool = z.looseObject({
  type: z.literal('mcp'),
  server_label: z.string().min(1).max(64),
  allowed_tools: nullable(
    z.union(
      [z.array(z.string()), z.looseObject({ tool_names: nullable(z.array(z.string())), read_only: nullable(z.boolean()) })],
      {
        error: 'allowed_tools must be a list of tool names or {tool_names}',
      },
    ),
  ),
  require_approval: nullable(z.unknown()),
  server_url: nullable(z.string()),
  connector_id: nullable(z.string()),
});

export type ResponsesMcpTool = z.infer<typeof mcpTool>;

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a format name is 1–64 letters, digits, "_" or "-"'),
    schema: z.record(z.string(), z.unknown()),
    description: nullable(z.string()),
    strict: nullable(z.boolean()),
  }),
]);

export type ResponsesTextFormat = z.infer<typeof textFormat>;

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1).default('default'),
  input: stringOr(
    z.array(byType(inputItems, 'input items', 'message')).min(1, 'input must hold at least one item'),
    'a list of items',
  ),
  instructions: nullable(z.string()),
  max_output_tokens: nullable(z.int().min(1)),
  temperature: nullable(z.number().min(0).max(2)),
  top_p: nullable(z.number().min(0).max(1)),
  tools: nullable(z.array(byType({ function: functionTool, mcp: mcpTool }, 'tools'))),
  tool_choice: nullable(
    z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.literal('function'), name: z.string().min(1) })], {
      error: "tool_choice must be 'none', 'auto', 'required' or {type: 'function', name}",
    }),
  ),
  parallel_tool_calls: nullable(z.boolean()),
  /** How many built-in (here: `mcp`) tool calls the response may run; further calls are ignored. */
  max_tool_calls: nullable(z.int().min(0)),
  text: nullable(z.looseObject({ format: nullable(textFormat) })),
  stream: nullable(z.boolean()),
  store: nullable(z.boolean()),
  previous_response_id: nullable(z.string()),
  background: nullable(z.boolean()),
  metadata: nullable(z.record(z.string(), z.string().max(512))),
  user: nullable(z.string().max(256)),
  reasoning: nullable(z.looseObject({ effort: nullable(z.string()) })),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/**
 * Any object with a `type` (or none, read as `fallback`), then the schema named by that type,
 * whose issues keep their own paths. A type with no schema is refused by name.
 */
function byType<S extends Record<string, z.ZodType>>(schemas: S, what: string, fallback?: keyof S & string) {
  return z.looseObject({ type: z.string().optional() }).transform((value, ctx): z.output<S[keyof S]> => {
    const type = value.type ?? fallback;
    const schema = type !== undefined && Object.hasOwn(schemas, type) ? schemas[type] : undefined;
    if (!schema) {
      const known = Object.keys(schemas).join("', '");
      ctx.issues.push({
        code: 'custom',
        message:
          type === undefined ? `needs a type ('${known}')` : `${what} of type '${type}' are not supported here ('${known}' are)`,
        path: ['type'],
        input: value.type,
      });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data as z.output<S[keyof S]>;
    forward(parsed.error, ctx);
    return z.NEVER;
  });
}

/**
 * A string, or what `list` parses. Not a union: a union reports a wrong item only as "invalid
 * input" at the list, where this names the item (`input[2].call_id`).
 */
function stringOr<S extends z.ZodType>(list: S, what: string) {
  return z.unknown().transform((value, ctx): string | z.output<S> => {
    if (typeof value === 'string') return value;
    if (!Array.isArray(value)) {
      ctx.issues.push({ code: 'custom', message: `expected a string or ${what}`, input: value });
      return z.NEVER;
    }
    const parsed = list.safeParse(value);
    if (parsed.success) return parsed.data;
    forward(parsed.error, ctx);
    return z.NEVER;
  });
}

/** Another parse's issues as this one's, each keeping its path below the current value. */
function forward(error: z.ZodError, ctx: { issues: unknown[] }): void {
  for (const issue of error.issues)
    ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: undefined });
}
