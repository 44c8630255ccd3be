/**
 * What POST /v1/responses answers: the Response object and the events of its stream, as the
 * OpenAI Responses API documents them (only the parts this gateway produces).
 */
export interface ResponseOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface ResponseRefusal {
  type: 'refusal';
  refusal: string;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponseMessageItem {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: (ResponseOutputText | ResponseRefusal)[];
}

export interface ResponseFunctionCallItem {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  arguments: string;
}

/**
 * A tool the API ran on an MCP server, and the tools it listed there: openai-node v6
 * `ResponseOutputItem.McpCall` / `.McpListTools` (resources/responses/responses.d.ts).
 */
export interface ResponseMcpCallItem {
  id: string;
  type: 'mcp_call';
  status: 'in_progress' | 'calling' | 'completed' | 'failed';
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  approval_request_id: null;
}

export interface ResponseMcpListToolsItem {
  id: string;
  type: 'mcp_list_tools';
  server_label: string;
  tools: { name: string; description: string | null; input_schema: unknown; annotations: null }[];
  error: string | null;
}

export type ResponseOutputItem = ResponseMessageItem | ResponseFunctionCallItem | ResponseMcpCallItem | ResponseMcpListToolsItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponseOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  store: false;
  temperature: number | null;
  top_p: number | null;
  text: { format: Record<string, unknown> };
  tool_choice: unknown;
  tools: unknown[];
  truncation: 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

/** One event of a Responses stream; `sequence_number` counts every event from 0. */
export type ResponseStreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;
