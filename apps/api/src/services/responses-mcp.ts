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
  unixSeconds,
} from '@switchboard/protocol';
import {
  type CallContext,
  type CompletionStream,
  fromChatCompletion,
  type Gateway,
  type RoutePlan,
  responseShell,
  toAbortSignal,
  toChatRequest,
} from '@switchboard/providers';
import { ARGUMENTS_NOT_AN_OBJECT, asFunctionTool, type McpServers, type OfferedTool, toolArguments } from '@switchboard/tools';
import { McpEvents } from './mcp-response-events.js';

/**
 * `mcp` tools on POST /v1/responses, run by the API process as OpenAI runs remote MCP servers:
 * the model is offered the tools of the named (configured, granted) servers as functions; each
 * call it makes runs through packages/tools (time-out, output cap, failures as tool errors) and
 * its result goes back to it, until it answers in text or asked for tools MAX_TOOL_STEPS times
 * (then once more with `tool_choice: "none"`). `max_tool_calls` bounds the calls run: past it, a
 * call the model asks for is not run (no item; the model is told), and it is asked on without
 * tools. The output holds an `mcp_list_tools` item per server, an `mcp_call` item per call, then
 * the message; a stream sends the events OpenAI documents for them, the model's text as it
 * streams. Shapes: openai-node v6 (resources/responses/responses.d.ts:
 * `ResponseOutputItem.McpCall`/`McpListTools`, `ResponseMcpCall{InProgress,Completed,Failed}Event`,
 * `ResponseMcpListTools{InProgress,Completed,Failed}Event`, `ResponseMcpCallArguments{Delta,Done}Event`).
 */
export const MAX_TOOL_STEPS = 8;

/** A request's `mcp` tools, each with its index in `tools` (for a 400's `param`). */
export type McpToolsOf = { tool: ResponsesMcpTool; index: number }[];

/** The request's `mcp` tools with their index in `tools`: read once per request, by the route. */
export function mcpToolsOf(request: ResponsesRequest): McpToolsOf {
  return (request.tools ?? []).flatMap((tool, index) => (tool.type === 'mcp' ? [{ tool, index }] : []));
}

/**
 * Refuses (400, with `param`) what this gateway does not run: a server named by URL or connector
 * (or sent headers or a token: a configured server has its own),
 * a label no configured server has, one the key is not granted, approvals, duplicate labels.
 */
export function checkMcpTools(named: McpToolsOf, grants: readonly string[], configured: readonly string[]): void {
  const code = 'unsupported_parameter';
  const seen = new Set<string>();
  for (const { tool, index } of named) {
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
  mcpTools: McpToolsOf,
  grants: readonly string[],
): Promise<{ offered: Map<string, OfferedTool>; lists: ResponseMcpListToolsItem[] }> {
  const named = mcpTools.map(({ tool }) => tool);
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

/** What the route read of the request: its `mcp` tools (checked) and the key's grants. */
export interface McpRequest {
  request: ResponsesRequest;
  mcpTools: McpToolsOf;
  grants: readonly string[];
}

/**
 * One model call of the loop, once the upstream accepted it: iterated, it yields the events of its
 * text as the model streams it (a whole call: none) and returns the completion.
 */
type ModelStep = AsyncGenerator<ResponseStreamEvent, ChatCompletion>;

/**
 * Lists the tools and asks the model once; resolves once the upstream accepted (a failure until
 * then is still a JSON error), with the events of the whole loop. With `streamText`, each model
 * call is streamed upstream and its text sent on as it comes; without, each is a whole call. Usage
 * is summed over the model calls and metered once, when the loop ends however it ends.
 */
export async function openMcpResponse(
  deps: McpResponseDeps,
  { request, mcpTools, grants }: McpRequest,
  plan: RoutePlan,
  call: CallContext,
  streamText = false,
): Promise<McpResponseStream> {
  const { offered, lists } = await offer(deps.tools, mcpTools, grants);
  const clientFunctions = new Set(request.tools?.flatMap((tool) => (tool.type === 'function' ? [tool.name] : [])));
  for (const name of offered.keys())
    if (clientFunctions.has(name))
      throw invalidRequest(`The function name '${name}' is also an MCP tool's name here: rename the function.`, 'tools');
  const chat = toChatRequest(request, false);
  chat.tools = [...(chat.tools ?? []), ...[...offered.values()].map(asFunctionTool)];
  const usage = new UsageSum(call);
  const upstream = { signal: call.signal, requestId: call.requestId, onUsage: usage.add };
  const maxCalls = request.max_tool_calls ?? Number.POSITIVE_INFINITY;
  let toolSignal: AbortSignal | undefined;
  let ran = 0;
  // Past its steps, or its calls with no function of the client's to call: asked on without tools.
  const choiceAt = (step: number): 'none' | undefined =>
    step > MAX_TOOL_STEPS || (ran >= maxCalls && clientFunctions.size === 0) ? 'none' : undefined;
  // The Response's events: there once the first call was accepted (a streamed step sends its text through them).
  let out!: McpEvents;
  const ask = async (messages: ChatMessage[], step: number): Promise<ModelStep & { model: string }> => {
    const choice = choiceAt(step);
    const body: ChatCompletionRequest = { ...chat, messages, ...(choice ? { tool_choice: choice } : {}) };
    if (!chat.tools?.length) delete body.tools;
    if (!streamText) return answered(await deps.gateway.complete(body, upstream, plan));
    const streamed = { ...body, stream: true, stream_options: { include_usage: true } };
    return streamStep(await deps.gateway.stream(streamed, upstream, plan), () => out);
  };
  let first: ModelStep & { model: string };
  try {
    first = await ask(chat.messages, 1);
  } catch (err) {
    usage.settle();
    throw err;
  }
  const model = first.model;
  out = new McpEvents(responseShell(request, { id: responseId(), created_at: unixSeconds(), model }));

  async function* events(): AsyncGenerator<ResponseStreamEvent> {
    try {
      yield* out.start();
      for (const list of lists) yield* out.listed(list);
      const transcript = [...chat.messages];
      let pending = first;
      for (let step = 1; ; step++) {
        const completion = yield* pending;
        const answer = fromChatCompletion(completion, out.shell);
        const calls = answer.output.filter((item): item is ResponseFunctionCallItem => item.type === 'function_call');
        // After the last step the model was told not to call tools: a call it makes anyway is not run.
        const mine = step > MAX_TOOL_STEPS ? [] : calls.filter((item) => offered.has(item.name));
        const theirs = calls.filter((item) => !offered.has(item.name));
        const streamed = out.textDone(answer.status === 'completed' ? 'completed' : 'incomplete');
        yield* streamed;
        for (const item of answer.output)
          if (item.type === 'message' && !streamed.length && (calls.length === 0 || hasText(item))) yield* out.whole(item);
        const results: ChatMessage[] = [];
        for (const item of mine) {
          // Past max_tool_calls a call is not run, and makes no item (OpenAI: "ignored"); the model is told.
          let content = `Error: not run: this response may make at most ${maxCalls} MCP tool calls (max_tool_calls).`;
          if (ran < maxCalls) {
            ran++;
            toolSignal ??= toAbortSignal(call.signal); // the MCP client takes AbortSignals only
            content = yield* run(deps.tools, out, offered.get(item.name)!, item, toolSignal);
          }
          results.push({ role: 'tool', tool_call_id: item.call_id, content });
        }
        // No MCP call, or the client's own functions asked for too: the client runs those, and the answer ends here.
        if (mine.length === 0 || theirs.length > 0) {
          for (const item of theirs) yield* out.whole(item);
          yield* out.finish(answer, usage.settle());
          return;
        }
        transcript.push(completion.choices[0]!.message as ChatMessage, ...results);
        pending = await ask(transcript, step + 1);
      }
    } finally {
      usage.settle();
    }
  }

  return {
    model,
    events: events(),
    fail: (err) => out.fail(toErrorResponse(err).body.error),
  };
}

/** The whole Response: the same loop, its events drained. */
export async function createMcpResponse(
  deps: McpResponseDeps,
  mcp: McpRequest,
  plan: RoutePlan,
  call: CallContext,
): Promise<ResponseObject> {
  const stream = await openMcpResponse(deps, mcp, plan, call);
  let last: ResponseStreamEvent | undefined;
  for await (const event of stream.events) last = event;
  return last?.response as ResponseObject;
}

/** A whole model call as a step: no events, its completion. */
function answered(completion: ChatCompletion): ModelStep & { model: string } {
  const step = (async function* (): ModelStep {
    yield* [];
    return completion;
  })();
  return Object.assign(step, { model: completion.model });
}

/**
 * A streamed model call as a step: each text or refusal delta goes out as it comes (`out()`: the Response's
 * events, there once the first call was accepted); tool calls are gathered whole, to be run or
 * handed to the client once the stream is over. Returns the completion the chunks add up to.
 */
function streamStep(stream: CompletionStream, out: () => McpEvents): ModelStep & { model: string } {
  const step = (async function* (): ModelStep {
    let text = '';
    let refusal = '';
    let finishReason: string | null = null;
    const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
    for await (const chunk of stream.chunks) {
      const choice = chunk.choices.find((c) => c.index === 0);
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const { content, refusal: refused, tool_calls } = choice.delta as ChunkDelta;
      if (typeof content === 'string' && content) {
        text += content;
        yield* out().text(content);
      }
      if (typeof refused === 'string' && refused) {
        refusal += refused;
        yield* out().refusal(refused);
      }
      for (const delta of Array.isArray(tool_calls) ? tool_calls : []) {
        calls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
        const call = calls[delta.index]!;
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.function.name += delta.function.name;
        if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
      }
    }
    const toolCalls = calls.filter(Boolean);
    const message = {
      role: 'assistant' as const,
      content: text || null,
      ...(refusal ? { refusal } : {}),
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    };
    return {
      id: stream.id,
      object: 'chat.completion',
      created: unixSeconds(),
      model: stream.model,
      choices: [{ index: 0, message, finish_reason: finishReason ?? 'stop', logprobs: null }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    } as ChatCompletion;
  })();
  return Object.assign(step, { model: stream.model });
}

/** What a chunk's delta may hold (chat-completion chunks, OpenAI's streaming reference). */
interface ChunkDelta {
  content?: unknown;
  refusal?: unknown;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
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

/** The usage of every model call of the loop (as the gateway reports it, a stream's however it ends), metered once with the sum. */
class UsageSum {
  private sum: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  private model = '';
  private calls = 0;
  private settled = false;

  constructor(private readonly call: CallContext) {}

  readonly add = (usage: Usage, model: string): void => {
    this.calls++;
    this.model = model;
    this.sum.prompt_tokens += usage.prompt_tokens;
    this.sum.completion_tokens += usage.completion_tokens;
    this.sum.total_tokens += usage.total_tokens;
  };

  /** Meters the sum (once); answers it. */
  settle(): Usage {
    if (!this.settled && this.calls > 0) this.call.onUsage?.(this.sum, this.model);
    this.settled = true;
    return { ...this.sum };
  }
}
