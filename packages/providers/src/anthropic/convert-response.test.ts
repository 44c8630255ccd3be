import { describe, expect, it } from 'vitest';
import { fromAnthropicResponse } from './convert-response.js';
import { mapFinishReason } from './map-finish-reason.js';

const message = (overrides: Record<string, unknown> = {}) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 5 },
  ...overrides,
});

describe('fromAnthropicResponse', () => {
  it('returns one choice with the text, the mapped finish reason and the usage', () => {
    expect(fromAnthropicResponse('anthropic', message())).toEqual({
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
  });

  it('concatenates text blocks and skips blocks it has no OpenAI form for', () => {
    const content = [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'Hello, ' },
      { type: 'text', text: 'world', citations: [] },
    ];
    expect(fromAnthropicResponse('anthropic', message({ content })).choices[0]?.message.content).toBe('Hello, world');
  });

  it('counts cached prompt tokens as prompt tokens', () => {
    const usage = { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 };
    expect(fromAnthropicResponse('anthropic', message({ usage })).usage).toEqual({
      prompt_tokens: 130,
      completion_tokens: 4,
      total_tokens: 134,
    });
  });

  it('returns tool_use blocks as tool calls with JSON-string arguments', () => {
    const content = [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }];
    const choice = fromAnthropicResponse('anthropic', message({ content, stop_reason: 'tool_use' })).choices[0];
    expect(choice).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('returns empty content for a message without text', () => {
    expect(fromAnthropicResponse('anthropic', message({ content: [] })).choices[0]?.message.content).toBe('');
  });

  it.each([
    ['no content array', { content: 'Hello' }],
    ['no usage', { usage: undefined }],
    ['a text block without text', { content: [{ type: 'text' }] }],
  ])('rejects a body with %s as an invalid upstream response', (_, overrides) => {
    expect(() => fromAnthropicResponse('anthropic', message(overrides))).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_invalid_response' }),
    );
  });
});

describe('mapFinishReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['model_context_window_exceeded', 'length'],
    ['pause_turn', 'stop'],
    [null, 'stop'],
    [undefined, 'stop'],
  ])('maps %s to %s', (reason, expected) => {
    expect(mapFinishReason(reason)).toBe(expected);
  });
});
