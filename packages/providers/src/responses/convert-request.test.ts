import { AppError, responsesRequestSchema } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { toChatRequest } from './convert-request.js';

const convert = (body: Record<string, unknown>, stream = false) =>
  toChatRequest(responsesRequestSchema.parse({ model: 'm', ...body }), stream);

describe('toChatRequest', () => {
  it('makes instructions the first system message and a string input one user message', () => {
    expect(convert({ instructions: 'Be brief.', input: 'hi' }).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('keeps message roles, and joins text parts (input_text, output_text, refusal) into one string', () => {
    const chat = convert({
      input: [
        { role: 'developer', content: 'rules' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'answer', annotations: [] }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'developer', content: 'rules' },
      { role: 'user', content: 'ab' },
      { role: 'assistant', content: 'answer' },
    ]);
  });

  it('takes back an earlier answer’s mcp_call as the call and its result, skipping mcp_list_tools', () => {
    const chat = convert({
      input: [
        { role: 'user', content: 'open a ticket' },
        { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'desk', tools: [] },
        { type: 'mcp_call', id: 'mcp_1', server_label: 'desk', name: 'create.ticket', arguments: '{}', output: '#7' },
        { type: 'mcp_call', id: 'mcp_2', server_label: 'desk', name: 'close', arguments: '{}', error: 'timed out' },
      ],
      tools: [{ type: 'mcp', server_label: 'desk', require_approval: 'never' }],
    });
    const call = (id: string, name: string) => ({ id, type: 'function', function: { name, arguments: '{}' } });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'open a ticket' },
      { role: 'assistant', content: null, tool_calls: [call('mcp_1', 'desk__create_ticket')] },
      { role: 'tool', tool_call_id: 'mcp_1', content: '#7' },
      { role: 'assistant', content: null, tool_calls: [call('mcp_2', 'desk__close')] },
      { role: 'tool', tool_call_id: 'mcp_2', content: 'Error: timed out' },
    ]);
    // The mcp tool is not the upstream's: the API offers its tools.
    expect(chat.tools).toBeUndefined();
  });

  it('sends images as image_url parts, and refuses an image given only by file id', () => {
    const chat = convert({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'what?' },
            { type: 'input_image', image_url: 'https://x/cat.png', detail: 'low' },
          ],
        },
      ],
    });
    expect(chat.messages[0]?.content).toEqual([
      { type: 'text', text: 'what?' },
      { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } },
    ]);
    const byFile = () => convert({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] });
    expect(byFile).toThrow(expect.objectContaining({ status: 400, param: 'input[0].content[0].image_url' }));
  });

  it('puts function calls on the assistant turn before them, and outputs in tool messages', () => {
    const chat = convert({
      input: [
        { role: 'user', content: 'weather in Paris and Oslo?' },
        { role: 'assistant', content: 'Checking.' },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'c1', output: '18°C' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: '9°C' }] },
      ],
    });
    expect(chat.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '18°C' },
      { role: 'tool', tool_call_id: 'c2', content: '9°C' },
    ]);
  });

  it('maps the settings: max_output_tokens, sampling, tools, tool_choice, text.format, reasoning effort', () => {
    const chat = convert({
      input: 'x',
      max_output_tokens: 99,
      temperature: 0,
      top_p: 0.5,
      user: 'u',
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(chat).toMatchObject({
      max_completion_tokens: 99,
      temperature: 0,
      top_p: 0.5,
      user: 'u',
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(convert({ input: 'x', text: { format: { type: 'json_object' } } }).response_format).toEqual({ type: 'json_object' });
    expect(convert({ input: 'x', text: { format: { type: 'text' } } })).not.toHaveProperty('response_format');
  });

  it('asks for usage at the end of a stream', () => {
    expect(convert({ input: 'x' }, true).stream_options).toEqual({ include_usage: true });
    expect(convert({ input: 'x' })).not.toHaveProperty('stream_options');
  });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_1' }],
    ['store', { store: true }],
    ['background', { background: true }],
    ['conversation', { conversation: 'conv_1' }],
    ['prompt', { prompt: { id: 'pmpt_1' } }],
  ])('refuses %s with a 400 naming it: nothing is stored here', (param, extra) => {
    const run = () => convert({ input: 'x', ...extra });
    expect(run).toThrow(AppError);
    expect(run).toThrow(expect.objectContaining({ status: 400, param, code: 'unsupported_parameter' }));
  });
});
