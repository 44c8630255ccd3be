import { describe, expect, it } from 'vitest';
import { toolOutput } from './tool-output.js';

/**
 * What the model reads of a tool's result. `McpServers.call` checks a result only for being an
 * object, so whatever a server puts inside it reaches `toolOutput`, which must read it without
 * throwing and without passing on anything but text.
 */
describe('toolOutput', () => {
  it('joins text items and names the others', () => {
    const result = {
      content: [
        { type: 'text', text: 'sum: 5' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    };
    expect(toolOutput(result, 100)).toEqual({ text: 'sum: 5\n[image content]', isError: false });
  });

  it('reads a malformed result from a buggy or hostile server without throwing', () => {
    const result = {
      content: [null, 42, 'loose text', { type: 'text', text: { nested: true } }, { text: 'no type' }, { type: 7 }],
      isError: 'yes',
    };
    expect(toolOutput(result, 1_000)).toEqual({
      text: [
        '[unreadable content]',
        '[unreadable content]',
        '[unreadable content]',
        '[text content]',
        '[unknown content]',
        '[unknown content]',
      ].join('\n'),
      // only a real `true` marks the call failed
      isError: false,
    });
  });

  it('takes content that is not a list as none, falling back to structured content', () => {
    expect(toolOutput({ content: 'just a string', structuredContent: { total: 3 } }, 100)).toEqual({
      text: '{"total":3}',
      isError: false,
    });
    expect(toolOutput({ isError: true }, 100)).toEqual({ text: '', isError: true });
  });

  it('cuts a huge result and says so', () => {
    const { text } = toolOutput({ content: [{ type: 'text', text: 'x'.repeat(50) }] }, 10);
    expect(text).toBe(`${'x'.repeat(10)}\n[output cut: 10 of 50 characters shown]`);
  });
});
