import { chatCompletionRequestSchema } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from './convert-request.js';
import { fromAnthropicResponse } from './convert-response.js';
import { createStreamState, fromAnthropicEvent } from './convert-stream.js';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const format = { type: 'json_schema', json_schema: { name: 'place', schema } };
const request = (extra: Record<string, unknown> = {}) =>
  chatCompletionRequestSchema.parse({
    model: 'c',
    messages: [{ role: 'user', content: 'where?' }],
    response_format: format,
    ...extra,
  });
const usage = { input_tokens: 5, output_tokens: 3 };
const event = (type: string, data: Record<string, unknown>) => ({ event: type, data: JSON.stringify({ type, ...data }) });

describe('a json_schema response_format on Anthropic', () => {
  it('is sent as one tool with the schema as input_schema, and a tool_choice forcing it', () => {
    const body = toAnthropicRequest(request(), 'claude', { stream: false, defaultMaxTokens: 100 });
    expect(body.tools).toEqual([{ name: 'place', description: expect.any(String), input_schema: schema }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'place' });
  });

  it('is refused with tools beside it, and without a schema', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    expect(() => toAnthropicRequest(request({ tools }), 'claude', { stream: false, defaultMaxTokens: 100 })).toThrow(
      expect.objectContaining({ status: 400, param: 'response_format' }),
    );
    const bare = request({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } });
    expect(() => toAnthropicRequest(bare, 'claude', { stream: false, defaultMaxTokens: 100 })).toThrow(
      expect.objectContaining({ status: 400, param: 'response_format' }),
    );
  });

  it('comes back as text: the forced tool’s input as JSON, finish_reason stop', () => {
    const message = {
      content: [{ type: 'tool_use', id: 't1', name: 'place', input: { city: 'Paris' } }],
      stop_reason: 'tool_use',
      usage,
    };
    const answer = fromAnthropicResponse('claude', message, 'place');
    expect(answer.choices[0]).toMatchObject({
      message: { role: 'assistant', content: '{"city":"Paris"}' },
      finish_reason: 'stop',
    });
    expect(answer.choices[0]?.message).not.toHaveProperty('tool_calls');
  });

  it('streams the forced tool’s input as text deltas', () => {
    const state = createStreamState('place');
    const events = [
      event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 't1', name: 'place', input: {} } }),
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage }),
    ].map((e) => fromAnthropicEvent('claude', e, state));
    expect(events[0]).toBeNull();
    expect(events.slice(1, 3).map((c) => (c === null || c === 'done' ? null : c.choices[0]?.delta.content))).toEqual([
      '{"city":',
      '"Paris"}',
    ]);
    expect(events[3]).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
  });
});
