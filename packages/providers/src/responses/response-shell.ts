import type { ResponseObject, ResponsesRequest, ResponseUsage, Usage } from '@switchboard/protocol';
import { z } from 'zod';

export interface ResponseHead {
  id: string;
  created_at: number;
  /** The deployment that serves it, `<provider>/<model>`. */
  model: string;
}

/** A Response with nothing generated yet: the request's settings echoed, as OpenAI does. */
export function responseShell(request: ResponsesRequest, head: ResponseHead): ResponseObject {
  return {
    id: head.id,
    object: 'response',
    created_at: head.created_at,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: head.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    store: false,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** Chat finish_reason → the Response's status: a cut answer is `incomplete`, with the reason. */
export function statusOf(finishReason: string | null): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

const details = z.looseObject({ cached_tokens: z.number().optional(), reasoning_tokens: z.number().optional() }).nullish();

/** Chat usage → Responses usage (`prompt_tokens` → `input_tokens`…), cached and reasoning counts kept. */
export function toResponseUsage(usage: Usage): ResponseUsage {
  const prompt = details.safeParse(usage.prompt_tokens_details);
  const completion = details.safeParse(usage.completion_tokens_details);
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: (prompt.success && prompt.data?.cached_tokens) || 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: (completion.success && completion.data?.reasoning_tokens) || 0 },
    total_tokens: usage.total_tokens,
  };
}
