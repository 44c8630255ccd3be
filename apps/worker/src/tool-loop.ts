import { DeliveryError, type SettledOutcome } from '@switchboard/channels';
import type { Reply } from '@switchboard/hub';
import {
  type Awaiting,
  EMPTY_TOOL_RECORD,
  type ToolCall,
  type ToolRecord,
  type ToolResult,
  type ToolStep,
} from '@switchboard/hub';
import type { ChatCompletion, ChatCompletionRequest, ChatMessage } from '@switchboard/protocol';
import { ARGUMENTS_NOT_AN_OBJECT, asFunctionTool, capped, isGranted, type OfferedTool, toolArguments } from '@switchboard/tools';
import type { WorkerDeps } from './deps.js';
import { hookCall } from './hook-call.js';
import type { MessageJob } from './message-job.js';

/** A reply reached through tools, and what memory keeps of the tools it used. */
export interface ToolAnswer {
  text: string;
  model: string;
  created: number;
  /** The reply preceded by a compact note of each call and its result, for follow-up questions. */
  memoryText: string;
}

/** Records a reply the tool loop reached, memory keeping the tools it used. */
export function recordToolAnswer(deps: WorkerDeps, job: MessageJob, answer: ToolAnswer, userMemo: string): Promise<Reply> {
  const { memoryText, ...reply } = answer;
  return deps.hub.exchange.record(job.jobId, job.conversation, userMemo, reply, { memoryText });
}

/** How much of a call's arguments and result memory keeps. */
const MEMORY_ARGS_CHARS = 200;
const MEMORY_RESULT_CHARS = 500;

/** Whether the hook's model may be offered tools here (a grant, and MCP servers configured): else `answerWithTools` has nothing to do. */
export function offersTools(deps: WorkerDeps, job: MessageJob): boolean {
  return deps.tools !== undefined && job.hook.config.tools.length > 0;
}

/**
 * The tool loop of one message: the model is offered the tools the hook grants; each call it asks
 * for runs (a tool not granted is refused to it, never run) and its result goes back to it, until
 * it answers in text or `maxToolSteps` model calls asked for tools (then it is asked once more,
 * with `tool_choice: "none"`). Exactly once per message: a step's request and each call's result
 * are recorded in the job (hub ToolLedger) before the loop goes on, and a run after a crash
 * replays them — a step recorded is not asked again, a call with a result does not run again.
 * A call in flight when the worker died has no result and runs again.
 *
 * @returns null when the hook grants no tool that is available now and no earlier run used one:
 *   the caller answers as a hook without tools does (streamed, where the hook streams).
 */
export async function answerWithTools(
  deps: WorkerDeps,
  job: MessageJob,
  prompt: ChatMessage[],
  signal: AbortSignal,
  onTool: (name: string) => void = () => {},
): Promise<ToolAnswer | null> {
  const grants = job.hook.config.tools;
  if (!deps.tools || grants.length === 0) return null;
  await deps.tools.start();
  const offered = deps.tools.offer(grants);
  // Only a run after the first can find anything recorded: the first skips the read.
  const earlier = job.job.attemptsStarted > 1 ? await deps.hub.tools.read(job.jobId) : EMPTY_TOOL_RECORD;
  if (offered.size === 0 && earlier.steps.size === 0) return null;
  const tools = [...offered.values()].map(asFunctionTool);
  const transcript: ChatMessage[] = [];
  const notes: string[] = [];
  const maxSteps = job.hook.config.maxToolSteps;
  for (let step = 0; step < maxSteps; step++) {
    let request = earlier.steps.get(step);
    if (!request) {
      const completion = await modelCall(deps, job, [...prompt, ...transcript], tools, 'auto', signal);
      const message = completion.choices[0]?.message;
      const calls = toolCalls(message?.tool_calls);
      if (calls.length === 0) return answer(completion, notes);
      request = await deps.hub.tools.recordStep(job.jobId, step, {
        role: 'assistant',
        content: message?.content ?? null,
        tool_calls: calls,
      });
    }
    transcript.push(request as ChatMessage);
    for (const [index, call] of request.tool_calls.entries()) {
      const key = `${step}:${index}`;
      const result =
        earlier.results.get(key) ??
        (await deps.hub.tools.recordResult(
          job.jobId,
          step,
          index,
          (await refusal(deps, job, earlier, offered, call, key, signal)) ?? (await runCall(deps, offered, call, signal, onTool)),
        ));
      transcript.push({ role: 'tool', tool_call_id: call.id, content: result.text });
      notes.push(note(offered, call, result));
    }
  }
  // Out of steps: one more answer, told not to call tools.
  return answer(await modelCall(deps, job, [...prompt, ...transcript], tools, 'none', signal), notes);
}

/**
 * Thrown when a call needs a person's yes and has none yet: the processor moves the job to
 * delayed until `until` (no worker slot held); an approval promotes it, and its next run replays
 * the loop up to this call and finds the decision.
 */
export class AwaitingApproval extends Error {
  constructor(readonly until: number) {
    super('a tool call is waiting for approval');
  }
}

/**
 * For a call the hook's `approve` lists: null once approved (it runs); a denial (a decision, or
 * none by the deadline) as the tool's result; with no decision yet, AwaitingApproval — after the
 * wait is recorded and, on a channel with buttons, the question posted where the reply goes (once:
 * the posted message is recorded with the wait; a run that died between the two posts it again).
 */
async function refusal(
  deps: WorkerDeps,
  job: MessageJob,
  earlier: ToolRecord,
  offered: ReadonlyMap<string, OfferedTool>,
  call: ToolCall,
  key: string,
  signal: AbortSignal,
): Promise<ToolResult | null> {
  const tool = offered.get(call.function.name);
  const { approve, approvalTimeoutMs, approvers } = job.hook.config;
  if (!tool || !isGranted(approve, tool.server, tool.tool)) return null;
  const asked = earlier.awaiting?.key === key ? earlier.awaiting : null;
  const decision = earlier.decisions.get(key);
  if (decision) {
    if (asked && decision.by) {
      const { approve, by, name } = decision;
      const decided = { kind: 'decided' as const, approve, by, byName: name, tool: asked.tool, arguments: asked.arguments };
      await settle(deps, job, asked, decided, signal);
    }
    return decision.approve ? null : { text: 'Error: the call was denied by the person asked to approve it.', isError: true };
  }
  const until = asked?.until ?? Date.now() + approvalTimeoutMs;
  if (Date.now() >= until) {
    if (asked) await settle(deps, job, asked, { kind: 'expired', tool: asked.tool, arguments: asked.arguments }, signal);
    return { text: `Error: the call was not approved within ${approvalTimeoutMs} ms.`, isError: true };
  }
  const awaiting: Awaiting = asked ?? {
    key,
    tool: tool.tool,
    arguments: call.function.arguments,
    until,
    approvers: approvers.length ? approvers : [job.queued.message.from],
  };
  if (!asked) await deps.hub.tools.setAwaiting(job.jobId, awaiting);
  const buttons = job.hook.approvals;
  if (buttons && !awaiting.prompt) {
    const question = { ...awaiting, approvers: awaiting.approvers ?? [], jobId: job.jobId, message: job.queued.message };
    const prompt = await buttons.ask(question, signal);
    await deps.hub.tools.setAwaiting(job.jobId, { ...awaiting, prompt });
  }
  throw new AwaitingApproval(until);
}

/**
 * The question in the chat says how it ended, without buttons — through the send limiter, as the
 * bot's other posts. Not the job's to fail for: a refusal costs a warning; a rate limit or an
 * outage is thrown for the job's back-off (the re-run replays up to here and edits again).
 */
async function settle(deps: WorkerDeps, job: MessageJob, asked: Awaiting, outcome: SettledOutcome, signal: AbortSignal) {
  if (!asked.prompt || !job.hook.approvals) return;
  await job.hook.approvals.settle(asked.prompt, outcome, job.queued.message, signal).catch((err: unknown) => {
    if (err instanceof DeliveryError && err.retryable) throw err;
    deps.logger.warn('the approval question could not be edited', { jobId: job.jobId, error: (err as Error).message });
  });
}

async function modelCall(
  deps: WorkerDeps,
  job: MessageJob,
  messages: ChatMessage[],
  tools: ReturnType<typeof asFunctionTool>[],
  choice: 'auto' | 'none',
  signal: AbortSignal,
): Promise<ChatCompletion> {
  const metered = await deps.meter.open(hookCall(job, messages));
  const request: ChatCompletionRequest = { model: job.hook.config.model, messages };
  if (tools.length) {
    request.tools = tools;
    request.tool_choice = choice;
  }
  return deps.gateway.complete(request, { signal, requestId: job.jobId, onUsage: metered.onUsage }).finally(metered.close);
}

/** One call: granted and available → the server runs it (bounded, never throws but on abort); else a tool error. */
async function runCall(
  deps: WorkerDeps,
  offered: ReadonlyMap<string, OfferedTool>,
  call: ToolCall,
  signal: AbortSignal,
  onTool: (name: string) => void,
): Promise<ToolResult> {
  const tool = offered.get(call.function.name);
  if (!tool || !deps.tools)
    return { text: `Error: the tool '${call.function.name}' is not available to this bot.`, isError: true };
  const args = toolArguments(call.function.arguments);
  if (!args) return ARGUMENTS_NOT_AN_OBJECT;
  onTool(tool.tool);
  return deps.tools.call(tool.server, tool.tool, args, signal);
}

/** The calls of a model's message that are well-formed function calls (others are ignored). */
function toolCalls(value: unknown): ToolStep['tool_calls'] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((call: Partial<ToolCall>) =>
    typeof call?.id === 'string' && typeof call.function?.name === 'string'
      ? [
          {
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: String(call.function.arguments ?? '{}') },
          },
        ]
      : [],
  );
}

function note(offered: ReadonlyMap<string, OfferedTool>, call: ToolCall, result: ToolResult): string {
  const name = offered.get(call.function.name)?.tool ?? call.function.name;
  const outcome = result.isError ? 'error' : 'result';
  return `${name}(${capped(call.function.arguments, MEMORY_ARGS_CHARS)}) ${outcome}: ${capped(result.text, MEMORY_RESULT_CHARS)}`;
}

function answer(completion: ChatCompletion, notes: string[]): ToolAnswer {
  const text = completion.choices[0]?.message.content ?? '';
  const memoryText = notes.length ? `[tools used]\n${notes.join('\n')}\n[reply]\n${text}` : text;
  return { text, model: completion.model, created: completion.created, memoryText };
}
