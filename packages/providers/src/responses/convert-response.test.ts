import type { ChatCompletion } from '@switchboard/protocol';
import { responsesRequestSchema } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { fromChatCompletion } from './convert-response.js';
import { responseShell } from './response-shell.js';

const shell = responseShell(
  responsesRequestSchema.parse({ model: 'm', input: 'x', instructions: 'Be brief.', metadata: { a: '1' } }),
  {
    id: 'resp_1',
    created_at: 1_700_000_000,
    model: 'p/m',
  },
);

function completion(message: Record<string, unknown>, finish: string, usage: Record<string, unknown> = {}): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'p/m',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, ...usage },
  };
}

describe('fromChatCompletion', () => {
  it('makes the text one completed message item and renames usage, echoing the request settings', () => {
    const response = fromChatCompletion(
      completion({ content: 'Hello' }, 'stop', {
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { reasoning_tokens: 2 },
      }),
      shell,
    );
    expect(response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'p/m',
      instructions: 'Be brief.',
      metadata: { a: '1' },
      store: false,
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 3 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 14,
      },
    });
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }],
      },
    ]);
  });

  it('makes each tool call a function_call item after the text', () => {
    const calls = [
      { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
      { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"a":1}' } },
    ];
    const response = fromChatCompletion(completion({ content: 'Let me look.', tool_calls: calls }, 'tool_calls'), shell);
    expect(response.output.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call']);
    expect(response.output[2]).toMatchObject({
      id: expect.stringMatching(/^fc_/),
      call_id: 'c2',
      name: 'g',
      arguments: '{"a":1}',
    });
    expect(fromChatCompletion(completion({ tool_calls: calls }, 'tool_calls'), shell).output.map((i) => i.type)).toEqual([
      'function_call',
      'function_call',
    ]);
  });

  it('reports a refusal as a refusal part, and a cut or filtered answer as incomplete with the reason', () => {
    expect(fromChatCompletion(completion({ refusal: 'I cannot help.' }, 'stop'), shell).output[0]).toMatchObject({
      content: [{ type: 'refusal', refusal: 'I cannot help.' }],
    });
    // Text and a refusal both: two parts of the one message, the text first.
    expect(fromChatCompletion(completion({ content: 'Sure. ', refusal: 'No.' }, 'stop'), shell).output).toEqual([
      expect.objectContaining({
        content: [
          { type: 'output_text', text: 'Sure. ', annotations: [], logprobs: [] },
          { type: 'refusal', refusal: 'No.' },
        ],
      }),
    ]);
    expect(fromChatCompletion(completion({ content: 'cut' }, 'length'), shell)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ status: 'incomplete' }],
    });
    expect(fromChatCompletion(completion({ content: '' }, 'content_filter'), shell).incomplete_details).toEqual({
      reason: 'content_filter',
    });
  });

  it('answers tool calls of the wrong shape with a 502', () => {
    expect(() => fromChatCompletion(completion({ tool_calls: [{ id: 1 }] }, 'tool_calls'), shell)).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_invalid_response' }),
    );
  });
});
