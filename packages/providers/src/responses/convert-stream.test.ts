import { type ChatCompletionChunk, type ResponseStreamEvent, responsesRequestSchema } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ResponseEventStream } from './convert-stream.js';
import { responseShell } from './response-shell.js';

const shell = () =>
  responseShell(responsesRequestSchema.parse({ model: 'm', input: 'x' }), {
    id: 'resp_1',
    created_at: 1_700_000_000,
    model: 'p/m',
  });
const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: ChatCompletionChunk['usage'],
): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'p/m',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});
const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };

function run(chunks: ChatCompletionChunk[]): ResponseStreamEvent[] {
  const stream = new ResponseEventStream(shell());
  return [...stream.start(), ...chunks.flatMap((c) => stream.push(c)), ...stream.finish()];
}

describe('ResponseEventStream', () => {
  it('turns text chunks into the documented text events, numbered from 0, and ends with the whole Response', () => {
    const events = run([
      chunk({ role: 'assistant', content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      { ...chunk({}), choices: [], usage },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ response: { id: 'resp_1', status: 'in_progress', output: [] } });
    expect(events[6]).toMatchObject({ output_index: 0, content_index: 0, text: 'Hello' });
    expect(events.at(-1)).toMatchObject({
      response: {
        status: 'completed',
        output: [{ type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'Hello' }] }],
        usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 },
      },
    });
  });

  it('streams a refusal after text as the message’s second part (refusal events at content_index 1), and keeps both', () => {
    const events = run([chunk({ content: 'Let me see. ' }), chunk({ refusal: 'I can' }), chunk({ refusal: 'not.' }, 'stop')]);
    expect(events.map((e) => e.type).slice(2)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[5]).toMatchObject({ output_index: 0, content_index: 1, part: { type: 'refusal', refusal: '' } });
    expect(events[10]).toMatchObject({ output_index: 0, content_index: 1, refusal: 'I cannot.' });
    expect(events.at(-1)).toMatchObject({
      response: {
        output: [
          {
            type: 'message',
            content: [
              { type: 'output_text', text: 'Let me see. ' },
              { type: 'refusal', refusal: 'I cannot.' },
            ],
          },
        ],
      },
    });
  });

  it('keeps every event as it was when made (later text does not change an earlier event)', () => {
    const stream = new ResponseEventStream(shell());
    const added = [...stream.start(), ...stream.push(chunk({ content: 'a' }))];
    stream.push(chunk({ content: 'b' }));
    stream.finish();
    expect(added.find((e) => e.type === 'response.output_item.added')).toMatchObject({
      item: { content: [], status: 'in_progress' },
    });
    expect(added.find((e) => e.type === 'response.content_part.added')).toMatchObject({ part: { text: '' } });
  });

  it('opens a function_call item per tool call and streams its arguments', () => {
    const events = run([
      chunk({ content: 'Checking.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, 'tool_calls'),
    ]);
    const added = events.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => (e.item as { type: string }).type)).toEqual(['message', 'function_call']);
    expect(events.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta)).toEqual([
      '{"a"',
      ':1}',
    ]);
    expect(events.find((e) => e.type === 'response.function_call_arguments.done')).toMatchObject({
      output_index: 1,
      arguments: '{"a":1}',
      name: 'f',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output: [{ type: 'message' }, { type: 'function_call', call_id: 'call_1', arguments: '{"a":1}' }] },
    });
  });

  it('ends a cut answer with response.incomplete, and an empty one with an empty message', () => {
    expect(run([chunk({ content: 'cut' }, 'length')]).at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    const empty = run([chunk({}, 'stop')]);
    expect(empty.at(-1)).toMatchObject({
      response: { output: [{ type: 'message', content: [{ type: 'output_text', text: '' }] }] },
    });
  });

  it('reports a failure as an error event, then response.failed with what was said so far', () => {
    const stream = new ResponseEventStream(shell());
    const before = [...stream.start(), ...stream.push(chunk({ content: 'half' }))];
    const failed = stream.fail({ code: 'upstream_stream_broken', message: 'broke' });
    expect(failed.map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect(failed[0]).toMatchObject({
      code: 'upstream_stream_broken',
      message: 'broke',
      param: null,
      sequence_number: before.length,
    });
    expect(failed[1]).toMatchObject({
      response: {
        status: 'failed',
        error: { code: 'upstream_stream_broken', message: 'broke' },
        output: [{ content: [{ text: 'half' }] }],
      },
    });
  });
});
