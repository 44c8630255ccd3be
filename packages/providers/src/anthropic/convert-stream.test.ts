import type { SseEvent } from '@switchboard/http';
import { describe, expect, it } from 'vitest';
import { createStreamState, fromAnthropicEvent } from './convert-stream.js';

const ev = (type: string, data: Record<string, unknown> = {}): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...data }),
});
const messageStart = ev('message_start', {
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-sonnet-4-5',
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 },
  },
});

describe('fromAnthropicEvent', () => {
  it('turns a text delta into a chunk with delta.content', () => {
    const chunk = fromAnthropicEvent(
      'anthropic',
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
      createStreamState(),
    );
    expect(chunk).toEqual({ choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] });
  });

  it('reports the mapped finish reason with prompt tokens from message_start and output tokens from message_delta', () => {
    const state = createStreamState();
    expect(fromAnthropicEvent('anthropic', messageStart, state)).toBeNull();
    const chunk = fromAnthropicEvent(
      'anthropic',
      ev('message_delta', { delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 15 } }),
      state,
    );
    expect(chunk).toEqual({
      choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
      usage: { prompt_tokens: 30, completion_tokens: 15, total_tokens: 45 },
    });
  });

  it('prefers prompt counts repeated in message_delta', () => {
    const state = createStreamState();
    fromAnthropicEvent('anthropic', messageStart, state);
    const chunk = fromAnthropicEvent(
      'anthropic',
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 40, output_tokens: 2 } }),
      state,
    );
    expect(chunk).not.toBe('done');
    expect(chunk && chunk !== 'done' && chunk.usage).toEqual({ prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 });
  });

  it('ends the stream at message_stop', () => {
    expect(fromAnthropicEvent('anthropic', ev('message_stop'), createStreamState())).toBe('done');
  });

  it('skips ping, text block boundaries, thinking deltas and unknown event types', () => {
    const state = createStreamState();
    const skipped = [
      ev('ping'),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      ev('content_block_stop', { index: 0 }),
      ev('some_future_event', { anything: 1 }),
      { event: null, data: '' },
    ];
    for (const event of skipped) expect(fromAnthropicEvent('anthropic', event, state)).toBeNull();
  });

  it('streams a tool_use block as an OpenAI tool call and its input as argument pieces', () => {
    const state = createStreamState();
    const start = fromAnthropicEvent(
      'anthropic',
      ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} } }),
      state,
    );
    const piece = fromAnthropicEvent(
      'anthropic',
      ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
      state,
    );
    expect(start).toEqual({
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '' } }] },
          finish_reason: null,
        },
      ],
    });
    expect(piece).toEqual({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }],
    });
  });

  it('throws a 502 with the upstream message on an error event', () => {
    const event = ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(() => fromAnthropicEvent('anthropic', event, createStreamState())).toThrow(
      expect.objectContaining({
        status: 502,
        code: 'upstream_error',
        message: "Upstream 'anthropic' failed mid-stream: Overloaded",
      }),
    );
  });

  it.each([
    ['data that is not JSON', { event: 'message_start', data: '{"type":' }],
    ['a text delta without text', ev('content_block_delta', { index: 0, delta: { type: 'text_delta' } })],
    ['a message_delta without delta', ev('message_delta', { usage: { output_tokens: 1 } })],
    [
      'tool arguments for no tool block',
      ev('content_block_delta', { index: 3, delta: { type: 'input_json_delta', partial_json: '{' } }),
    ],
  ])('rejects %s as an invalid upstream response', (_, event) => {
    expect(() => fromAnthropicEvent('anthropic', event, createStreamState())).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_invalid_response' }),
    );
  });
});
