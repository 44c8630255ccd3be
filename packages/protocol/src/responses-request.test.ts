import { describe, expect, it } from 'vitest';
import { formatParam } from './chat-request.js';
import { responsesRequestSchema } from './responses-request.js';

/** The `param` a 400 would name for `body`, or null when it parses. */
function firstParam(body: Record<string, unknown>): string | null {
  const result = responsesRequestSchema.safeParse({ model: 'm', ...body });
  return result.success ? null : formatParam(result.error.issues[0]!.path);
}

describe('responsesRequestSchema', () => {
  it('reads a string input and a list of typed or untyped items', () => {
    const parsed = responsesRequestSchema.parse({
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'ok' },
      ],
    });
    expect(parsed.model).toBe('default');
    expect(parsed.input).toHaveLength(3);
    expect(responsesRequestSchema.parse({ input: 'hi' }).input).toBe('hi');
  });

  it('names the wrong field inside an item, not just the list', () => {
    expect(
      firstParam({
        input: [
          { role: 'user', content: 'ok' },
          { type: 'function_call', call_id: 'c', name: 'f' },
        ],
      }),
    ).toBe('input[1].arguments');
    expect(firstParam({ input: [{ role: 'user', content: [{ type: 'input_text' }] }] })).toBe('input[0].content[0].text');
    expect(firstParam({ input: [{ type: 'reasoning', summary: [] }] })).toBe('input[0].type');
    expect(firstParam({ input: { role: 'user' } })).toBe('input');
    expect(firstParam({})).toBe('input');
  });

  it('takes function tools only, and a tool_choice that names one', () => {
    expect(firstParam({ input: 'x', tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] })).toBeNull();
    expect(firstParam({ input: 'x', tools: [{ type: 'function', name: 'f' }, { type: 'file_search' }] })).toBe('tools[1].type');
    expect(firstParam({ input: 'x', tool_choice: { type: 'function' } })).toBe('tool_choice');
  });
});
