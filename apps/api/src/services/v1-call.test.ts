import { describe, expect, it } from 'vitest';
import { modelOf } from './v1-call.js';

describe('modelOf (the model a replayed stream is logged and counted under)', () => {
  it('reads a chat chunk’s model', () => {
    expect(modelOf({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'mock/gpt-4o', choices: [] })).toBe('mock/gpt-4o');
  });

  it('reads the Response a Responses lifecycle event carries', () => {
    expect(modelOf({ type: 'response.created', response: { id: 'resp_1', model: 'mock/gpt-4o' } })).toBe('mock/gpt-4o');
  });

  it('gives nothing for an event without one, or no event at all', () => {
    expect(modelOf({ type: 'response.output_text.delta', delta: 'hi' })).toBeUndefined();
    expect(modelOf({ model: 42 })).toBeUndefined();
    expect(modelOf(undefined)).toBeUndefined();
  });
});
