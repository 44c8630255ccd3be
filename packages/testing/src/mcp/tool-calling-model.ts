import { randomUUID } from 'node:crypto';
import type { Handler, RecordedRequest } from '../http-server.js';
import { sendJson } from '../http-server.js';
import { answerText, chunkBody, completionBody, lastUserText, openSse, writeSse } from '../openai-upstream.js';

/** One model turn that asks for tools: each call's function name and arguments (an object). */
export type ToolTurn = { name: string; arguments: Record<string, unknown> }[];

interface Message {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

/**
 * A fake OpenAI model that calls tools as the chat-completions API documents it: a choice whose
 * message has `content: null` and `tool_calls: [{id, type: "function", function: {name,
 * arguments}}]` (arguments a JSON string) and `finish_reason: "tool_calls"`; the client answers
 * with `{"role": "tool", "tool_call_id", "content"}` messages (OpenAI API reference, "Create chat
 * completion", and the function-calling guide).
 *
 * `plan(prompt)` lists the turns that ask for tools for a user message; the model is at turn n
 * when n assistant messages with tool calls follow the last user message. Once the turns are used
 * up, or when `tool_choice` is `"none"`, it answers in text: `tools said: <each tool message's
 * content, joined by " | ">` (or `reply to: <prompt>` when no tool was called). Each call gets a
 * new random id, so a model asked a step again would give different ids. Asked with `stream: true`,
 * it streams the same answers: text word by word, tool calls as `delta.tool_calls` pieces (each
 * call's index, id and name first, its arguments in two halves), `finish_reason: "tool_calls"`.
 */
export function toolCallingModel(plan: (prompt: string) => ToolTurn[] | undefined): Handler {
  return (req, res) => {
    const body = req.json as { model?: string; messages?: Message[]; tool_choice?: unknown; stream?: boolean } | undefined;
    const model = body?.model ?? 'unknown';
    const messages = body?.messages ?? [];
    const prompt = lastUserText(req);
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const after = messages.slice(lastUser + 1);
    const turn = after.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    const turns = plan(prompt) ?? [];
    const calls = body?.tool_choice === 'none' ? undefined : turns[turn];
    if (!calls) {
      const results = after.filter((m) => m.role === 'tool').map((m) => String(m.content));
      answerText(req, res, results.length ? `tools said: ${results.join(' | ')}` : `reply to: ${prompt}`);
      return;
    }
    const tool_calls = calls.map((call) => ({
      id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    if (body?.stream) {
      openSse(res);
      writeSse(res, chunkBody(model, { role: 'assistant', content: null }));
      tool_calls.forEach(({ id, type, function: { name, arguments: args } }, index) => {
        const half = Math.ceil(args.length / 2);
        writeSse(
          res,
          chunkBody(model, { tool_calls: [{ index, id, type, function: { name, arguments: args.slice(0, half) } }] }),
        );
        writeSse(res, chunkBody(model, { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
      });
      writeSse(res, chunkBody(model, {}, 'tool_calls'));
      writeSse(res, '[DONE]');
      res.end();
      return;
    }
    const completion = completionBody(model, '');
    completion.choices = [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls } as never,
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ];
    sendJson(res, 200, completion);
  };
}

/** The tool messages a recorded request carried (what the model was told each call gave). */
export function toolMessages(req: RecordedRequest): { tool_call_id: string; content: string }[] {
  const messages = (req.json as { messages?: (Message & { tool_call_id?: string })[] } | undefined)?.messages ?? [];
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => ({ tool_call_id: String(m.tool_call_id), content: String(m.content) }));
}
