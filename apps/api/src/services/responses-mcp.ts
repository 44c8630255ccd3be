import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatMessage,
  invalidRequest,
  itemId,
  type ResponseFunctionCallItem,
  type ResponseMcpCallItem,
  type ResponseMcpListToolsItem,
  type ResponseObject,
  type ResponseOutputItem,
  type ResponseStreamEvent,
  type ResponsesMcpTool,
  type ResponsesRequest,
  responseId,
  toErrorResponse,
  type Usage,
} from '@switchboard/protocol';
import {
  type CallContext,
  fromChatCompletion,
  type Gateway,
  type RoutePlan,
  responseShell,
  toChatRequest,
  toResponseUsage,
} from '@switchboard/providers';
import { ARGUMENTS_NOT_AN_OBJECT, asFunctionTool, type McpServers, type OfferedTool, toolArguments } from '@switchboard/tools';

/**
 * `mcp` tools on POST /v1/responses, run by the API process as OpenAI runs remote MCP servers:
 * the model is offered the tools of the named (configured, granted) servers as functions; each
 * call it makes runs through packages/tools (time-out, output cap, failures as tool errors) and
 * its result goes back to it, until it answers in text or asked for tools MAX_TOOL_STEPS times
 * (then once more with `tool_choice: "none"`). The output holds an `mcp_list_tools` item per
 * server, an `mcp_call` item per call, then the message; a stream sends the events OpenAI
 * documents for them. Shapes: openai-node v6 (resources/responses/responses.d.ts:
 * `ResponseOutputItem.McpCall`/`McpListTools`, `ResponseMcpCall{InProgress,Completed,Failed}Event`,
 * `ResponseMcpListTools{InProgress,Completed,Failed}Event`, `ResponseMcpCallArguments{Delta,Done}Event`).
 */
export const MAX_TOOL_STEPS = 8;

/** The request's `mcp` tools with their index in `tools` (for a 400's `param`). */
export function mcpToolsOf(request: ResponsesRequest): { tool: ResponsesMcpTool; index: number }[] {
  return (request.tools ?? []).flatMap((tool, index) => (tool.type === 'mcp' ? [{ tool, index }] : []));
}

/**
 * Refuses (400, with `param`) what this gateway does not run: a server named by URL or connector
 * (or sent headers or a token: a configured server has its own),
 * a label no configured server has, one the key is not granted, approvals, duplicate labels.
 */
export function checkMcpTools(request: ResponsesRequest, grants: readonly string[], configured: readonly string[]): void {
  const code = 'unsupported_parameter';
  const seen = new Set<string>();
  for (const { tool, index } of mcpToolsOf(request)) {
    const at = `tools[${index}]`;
    const remote = (['server_url', 'connector_id', 'headers', 'authorization'] as const).find((field) => tool[field] != null);
    if (remote)
      throw invalidRequest(
        `${remote} is not supported: this gateway runs only its configured MCP servers (with their own headers); name one in server_label.`,
        `${at}.${remote}`,
        code,
      );
    const label = tool.server_label;
    if (!configured.includes(label))
      throw invalidRequest(`There is no MCP server named '${label}' here.`, `${at}.server_label`, 'mcp_server_not_found');
    if (!grants.some((grant) => grant === label || grant.startsWith(`${label}/`)))
      throw invalidRequest(
        `This API key may not use the MCP server '${label}' (apiKeys[].tools).`,
        `${at}.server_label`,
        'mcp_server_not_granted',
      );
    if (seen.has(label)) throw invalidRequest(`The MCP server '${label}' is named twice.`, `${at}.server_label`);
    seen.add(label);
    if (tool.require_approval !== 'never')
      throw invalidRequest(
        'Approvals are not supported on /v1 yet: set require_approval to "never" (OpenAI\'s default is "always").',
        `${at}.require_approval`,
        code,
      );
    const allowed = tool.allowed_tools;
    if (allowed && !Array.isArray(allowed) && allowed.read_only != null)
      throw invalidRequest('allowed_tools.read_only is not supported here: list tool_names.', `${at}.allowed_tools`, code);
  }
}

/** What the model is offered: each granted, allowed tool by its function name, and the servers' list items. */
async function offer(
  tools: McpServers,
  request: ResponsesRequest,
  grants: readonly string[],
): Promise<{ offered: Map<string, OfferedTool>; lists: ResponseMcpListToolsItem[] }> {
  const named = mcpToolsOf(request).map(({ tool }) => tool);
  await tools.ready(named.map((tool) => tool.server_label));
  const all = [...tools.offer(grants).values()];
  const connected = new Set(tools.states().flatMap((state) => (state.connected ? [state.name] : [])));
  const offered = new Map<string, OfferedTool>();
  const lists = named.map((mcp): ResponseMcpListToolsItem => {
    const allowed = Array.isArray(mcp.allowed_tools) ? mcp.allowed_tools : (mcp.allowed_tools?.tool_names ?? null);
    const mine = all.filter((tool) => tool.server === mcp.server_label && (allowed === null || allowed.includes(tool.tool)));
    for (const tool of mine) offered.set(tool.name, tool);
    return {
      id: itemId('mcpl'),
      type: 'mcp_list_tools',
      server_label: mcp.server_label,
      tools: mine.map((tool) => ({
        name: tool.tool,
        description: tool.description ?? null,
        input_schema: tool.parameters,
        annotations: null,
      })),
      error: connected.has(mcp.server_label) ? null : `the MCP server '${mcp.server_label}' is not connected`,
    };
  });
  return { offered, lists };
}

export interface McpResponseDeps {
  gateway: Gateway;
  tools: McpServers;
}

export interface McpResponseStream {
  model: string;
  /** From `response.created` to `response.completed`; throws when the upstream breaks off. */
  events: AsyncIterable<ResponseStreamEvent>;
  /** The events that end a stream broken by `err` (`error`, then `response.failed`). */
  fail(err: unknown): ResponseStreamEvent[];
}

/**
 * Lists the tools and asks the model once; resolves once it answered (a failure until then is
 * still a JSON error), with the events of the whole loop. Usage is summed over the model calls
 * and metered once, when the loop ends however it ends.
 */
export async function openMcpResponse(
  deps: McpResponseDeps,
  request: ResponsesRequest,
  grants: readonly string[],
  plan: RoutePlan,
  call: CallContext,
): Promise<McpResponseStream> {
  const { offered, lists } = await offer(deps.tools, request, grants);
  const clientFunctions = new Set(request.tools?.flatMap((tool) => (tool.type === 'function' ? [tool.name] : [])));
  for (const name of offered.keys())
    if (clientFunctions.has(name))
      throw invalidRequest(`The function name '${name}' is also an MCP tool's name here: rename the function.`, 'tools');
  const chat = toChatRequest(request, false);
  chat.tools = [...(chat.tools ?? []), ...[...offered.values()].map(asFunctionTool)];
  const usage = new UsageSum(call);
  const ask = async (messages: ChatMessage[], choice?: 'none') => {
    const body: ChatCompletionRequest = { ...chat, messages, ...(choice ? { tool_choice: choice } : {}) };
    if (!chat.tools?.length) delete body.tools;
    const completion = await deps.gateway.complete(body, { signal: call.signal, requestId: call.requestId }, plan);
    usage.add(completion);
    return completion;
  };
  let first: ChatCompletion;
  try {
    first = await ask(chat.messages);
  } catch (err) {
    usage.settle();
    throw err;
  }
  const out = new McpEvents(responseShell(request, { id: responseId(), created_at: first.created, model: first.model }));

  async function* events(): AsyncGenerator<ResponseStreamEvent> {
    try {
      yield* out.start();
      for (const list of lists) yield* out.listed(list);
      const transcript = [...chat.messages];
      let completion = first;
      for (let step = 1; ; step++) {
        const answer = fromChatCompletion(completion, out.shell);
        const calls = answer.output.filter((item): item is ResponseFunctionCallItem => item.type === 'function_call');
        // After the last step the model was told not to call tools: a call it makes anyway is not run.
        const mine = step > MAX_TOOL_STEPS ? [] : calls.filter((item) => offered.has(item.name));
        const theirs = calls.filter((item) => !offered.has(item.name));
        for (const item of answer.output)
          if (item.type === 'message' && (calls.length === 0 || hasText(item))) yield* out.whole(item);
        const results: ChatMessage[] = [];
        for (const item of mine) {
          const content = yield* run(deps.tools, out, offered.get(item.name)!, item, call.signal);
          results.push({ role: 'tool', tool_call_id: item.call_id, content });
        }
        // No MCP call, or the client's own functions asked for too: the client runs those, and the answer ends here.
        if (mine.length === 0 || theirs.length > 0) {
          for (const item of theirs) yield* out.whole(item);
          yield* out.finish(answer, usage.settle());
          return;
        }
        transcript.push(completion.choices[0]!.message as ChatMessage, ...results);
        // Out of steps: asked once more, told not to call tools.
        completion = await ask(transcript, step >= MAX_TOOL_STEPS ? 'none' : undefined);
      }
    } finally {
      usage.settle();
    }
  }

  return {
    model: first.model,
    events: events(),
    fail: (err) => out.fail(toErrorResponse(err).body.error),
  };
}

/** The whole Response: the same loop, its events drained. */
export async function createMcpResponse(
  deps: McpResponseDeps,
  request: ResponsesRequest,
  grants: readonly string[],
  plan: RoutePlan,
  call: CallContext,
): Promise<ResponseObject> {
  const stream = await openMcpResponse(deps, request, grants, plan, call);
  let last: ResponseStreamEvent | undefined;
  for await (const event of stream.events) last = event;
  return last?.response as ResponseObject;
}

/** Runs one call as an `mcp_call` item (events as it goes); answers what the model is told. */
async function* run(
  tools: McpServers,
  out: McpEvents,
  tool: OfferedTool,
  call: ResponseFunctionCallItem,
  signal: AbortSignal,
): AsyncGenerator<ResponseStreamEvent, string> {
  const item: ResponseMcpCallItem = {
    id: itemId('mcp'),
    type: 'mcp_call',
    status: 'in_progress',
    server_label: tool.server,
    name: tool.tool,
    arguments: call.arguments,
    output: null,
    error: null,
    approval_request_id: null,
  };
  const index = out.add(item);
  yield out.event('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } });
  const at = { item_id: item.id, output_index: index };
  yield out.event('response.mcp_call_arguments.delta', { ...at, delta: item.arguments });
  yield out.event('response.mcp_call_arguments.done', { ...at, arguments: item.arguments });
  yield out.event('response.mcp_call.in_progress', at);
  const args = toolArguments(call.arguments);
  const result = args ? await tools.call(tool.server, tool.tool, args, signal) : ARGUMENTS_NOT_AN_OBJECT;
  if (result.isError) Object.assign(item, { status: 'failed', error: result.text });
  else Object.assign(item, { status: 'completed', output: result.text });
  yield out.event(result.isError ? 'response.mcp_call.failed' : 'response.mcp_call.completed', at);
  yield out.event('response.output_item.done', { output_index: index, item: structuredClone(item) });
  return result.text;
}

function hasText(item: ResponseOutputItem): boolean {
  return item.type === 'message' && item.content.some((part) => (part.type === 'output_text' ? part.text : part.refusal));
}

/** The usage of every model call of the loop, metered once with the sum. */
class UsageSum {
  private sum: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  private model = '';
  private calls = 0;
  private settled = false;

  constructor(private readonly call: CallContext) {}

  add(completion: ChatCompletion): void {
    this.calls++;
    this.model = completion.model;
    this.sum.prompt_tokens += completion.usage.prompt_tokens;
    this.sum.completion_tokens += completion.usage.completion_tokens;
    this.sum.total_tokens += completion.usage.total_tokens;
  }

  /** Meters the sum (once); answers it. */
  settle(): Usage {
    if (!this.settled && this.calls > 0) this.call.onUsage?.(this.sum, this.model);
    this.settled = true;
    return { ...this.sum };
  }
}

/** The Response as it grows, and its events, numbered from 0 (each holds its own copies). */
class McpEvents {
  private sequence = 0;
  private readonly output: ResponseOutputItem[] = [];

  constructor(readonly shell: ResponseObject) {}

  start(): ResponseStreamEvent[] {
    return [
      this.event('response.created', { response: this.snapshot() }),
      this.event('response.in_progress', { response: this.snapshot() }),
    ];
  }

  add(item: ResponseOutputItem): number {
    this.output.push(item);
    return this.output.length - 1;
  }

  /** A server's tool list: added (no tools yet), in progress, completed or failed, done. */
  listed(list: ResponseMcpListToolsItem): ResponseStreamEvent[] {
    const index = this.add(list);
    const at = { item_id: list.id, output_index: index };
    return [
      this.event('response.output_item.added', { output_index: index, item: { ...list, tools: [], error: null } }),
      this.event('response.mcp_list_tools.in_progress', at),
      this.event(list.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', at),
      this.event('response.output_item.done', { output_index: index, item: structuredClone(list) }),
    ];
  }

  /** A message or function call known whole: the events a streamed one ends with, at once. */
  whole(item: ResponseOutputItem): ResponseStreamEvent[] {
    const index = this.add(item);
    const at = { item_id: item.id, output_index: index };
    const out: ResponseStreamEvent[] = [];
    if (item.type === 'message') {
      out.push(this.event('response.output_item.added', { output_index: index, item: { ...item, content: [] } }));
      for (const [content_index, part] of item.content.entries()) {
        const empty = part.type === 'output_text' ? { ...part, text: '' } : { ...part, refusal: '' };
        out.push(this.event('response.content_part.added', { ...at, content_index, part: empty }));
        if (part.type === 'output_text') {
          out.push(this.event('response.output_text.delta', { ...at, content_index, delta: part.text, logprobs: [] }));
          out.push(this.event('response.output_text.done', { ...at, content_index, text: part.text, logprobs: [] }));
        } else {
          out.push(this.event('response.refusal.delta', { ...at, content_index, delta: part.refusal }));
          out.push(this.event('response.refusal.done', { ...at, content_index, refusal: part.refusal }));
        }
        out.push(this.event('response.content_part.done', { ...at, content_index, part: structuredClone(part) }));
      }
    } else if (item.type === 'function_call') {
      out.push(this.event('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } }));
      out.push(this.event('response.function_call_arguments.delta', { ...at, delta: item.arguments }));
      out.push(this.event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }));
    }
    out.push(this.event('response.output_item.done', { output_index: index, item: structuredClone(item) }));
    return out;
  }

  /** The final Response: the last answer's status, every item, usage summed over the model calls. */
  finish(answer: ResponseObject, usage: Usage): ResponseStreamEvent[] {
    const { status, incomplete_details } = answer;
    const response = { ...this.snapshot(), status, incomplete_details, usage: toResponseUsage(usage) };
    return [this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response })];
  }

  fail(error: { code: string | null; message: string }): ResponseStreamEvent[] {
    const failure = { code: error.code ?? 'server_error', message: error.message };
    return [
      this.event('error', { code: error.code, message: error.message, param: null }),
      this.event('response.failed', { response: { ...this.snapshot(), status: 'failed', error: failure } }),
    ];
  }

  event(type: string, fields: Record<string, unknown>): ResponseStreamEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }

  private snapshot(): ResponseObject {
    return { ...this.shell, output: structuredClone(this.output) };
  }
}
