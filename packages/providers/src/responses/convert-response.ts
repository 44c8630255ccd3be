import {
  type ChatCompletion,
  itemId,
  type ResponseFunctionCallItem,
  type ResponseMessageItem,
  type ResponseObject,
  type ResponseOutputItem,
  upstreamError,
} from '@switchboard/protocol';
import { z } from 'zod';
import { statusOf, toResponseUsage } from './response-shell.js';

const toolCallsSchema = z.array(
  z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }),
);

/**
 * A chat completion → the Response: the assistant's text and refusal as one message item, each
 * tool call as a function_call item after it, usage renamed, status from the finish reason.
 */
export function fromChatCompletion(completion: ChatCompletion, shell: ResponseObject): ResponseObject {
  const choice = completion.choices[0];
  const { status, incomplete_details } = statusOf(choice?.finish_reason ?? null);
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
  const message = choice?.message;
  const calls = toolCallsSchema.safeParse(message?.tool_calls ?? []);
  if (!calls.success)
    throw upstreamError('The upstream answered with tool calls of the wrong shape.', 'upstream_invalid_response');
  const output: ResponseOutputItem[] = [];
  const text = typeof message?.content === 'string' ? message.content : '';
  const refusal = typeof message?.refusal === 'string' ? message.refusal : '';
  if (text || refusal || calls.data.length === 0) output.push(messageItem(text, refusal, itemStatus));
  for (const call of calls.data) {
    output.push({
      id: itemId('fc'),
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    } satisfies ResponseFunctionCallItem);
  }
  return { ...shell, status, incomplete_details, output, usage: toResponseUsage(completion.usage) };
}

export function messageItem(text: string, refusal: string, status: ResponseMessageItem['status']): ResponseMessageItem {
  return {
    id: itemId('msg'),
    type: 'message',
    status,
    role: 'assistant',
    // The Responses API's message holds its text and its refusal as parts of their own: both when both came.
    content: [
      ...(text || !refusal ? [{ type: 'output_text' as const, text, annotations: [], logprobs: [] }] : []),
      ...(refusal ? [{ type: 'refusal' as const, refusal }] : []),
    ],
  };
}
