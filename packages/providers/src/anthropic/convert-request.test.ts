import { AppError, type ChatCompletionRequest, chatCompletionRequestSchema } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from './convert-request.js';

const options = { stream: false, defaultMaxTokens: 4096 };
const req = (body: Record<string, unknown>): ChatCompletionRequest =>
  chatCompletionRequestSchema.parse({ model: 'anthropic/claude', ...body });
const convert = (body: Record<string, unknown>) => toAnthropicRequest(req(body), 'claude-x', options);
const hi = [{ role: 'user', content: 'hi' }];

describe('toAnthropicRequest', () => {
  it('sends the upstream model name, the messages and the stream flag', () => {
    expect(toAnthropicRequest(req({ messages: hi }), 'claude-x', { stream: true, defaultMaxTokens: 10 })).toEqual({
      model: 'claude-x',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
  });

  it('joins system and developer messages into the top-level system field', () => {
    const body = convert({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(body.system).toBe('Be brief.\n\nAnswer in French.');
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('leaves out system when there is no system message', () => {
    expect(convert({ messages: hi })).not.toHaveProperty('system');
  });

  it('joins the text parts of array content into one string', () => {
    const body = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello, ' },
            { type: 'text', text: 'world' },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([{ role: 'user', content: 'Hello, world' }]);
  });

  it('merges consecutive messages of one role so that roles alternate', () => {
    const body = convert({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'three' },
        { role: 'system', content: 'ignored here' },
        { role: 'assistant', content: 'four' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'one\n\ntwo' },
      { role: 'assistant', content: 'three\n\nfour' },
    ]);
  });

  it('drops messages with empty content rather than sending an empty turn', () => {
    const body = convert({ messages: [{ role: 'user', content: '' }, ...hi] });
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('turns data: image URLs into base64 image blocks and other URLs into url images', () => {
    const body = convert({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          ],
        },
      ],
    });
    expect(body.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('turns assistant tool calls into tool_use blocks and tool messages into tool_result blocks', () => {
    const body = convert({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18°C' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('rejects tool call arguments that are not a JSON object with a 400', () => {
    const call = { id: 'c', type: 'function', function: { name: 'f', arguments: '[1,' } };
    const run = () => convert({ messages: [...hi, { role: 'assistant', tool_calls: [call] }] });
    expect(run).toThrow(AppError);
    expect(run).toThrow(expect.objectContaining({ status: 400, param: 'messages[1].tool_calls[0].function.arguments' }));
  });

  it('maps function tools and tool_choice to their Anthropic forms', () => {
    const tools = [
      { type: 'function', function: { name: 'weather', description: 'Weather now', parameters: { type: 'object' } } },
    ];
    const body = convert({ messages: hi, tools, tool_choice: 'required', parallel_tool_calls: false });
    expect(body.tools).toEqual([{ name: 'weather', description: 'Weather now', input_schema: { type: 'object' } }]);
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(
      convert({ messages: hi, tools, tool_choice: { type: 'function', function: { name: 'weather' } } }).tool_choice,
    ).toEqual({
      type: 'tool',
      name: 'weather',
    });
    expect(convert({ messages: hi, tools, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
  });

  it('uses max_completion_tokens, then max_tokens, then the configured default', () => {
    expect(convert({ messages: hi, max_completion_tokens: 7, max_tokens: 9 }).max_tokens).toBe(7);
    expect(convert({ messages: hi, max_tokens: 9 }).max_tokens).toBe(9);
    expect(convert({ messages: hi }).max_tokens).toBe(4096);
  });

  it('clamps a temperature above 1 to 1 and keeps lower ones', () => {
    expect(convert({ messages: hi, temperature: 1.7 }).temperature).toBe(1);
    expect(convert({ messages: hi, temperature: 0.3 }).temperature).toBe(0.3);
    expect(convert({ messages: hi, temperature: 0 }).temperature).toBe(0);
  });

  it('sends top_p alone, but only temperature when both are given', () => {
    expect(convert({ messages: hi, top_p: 0.9 }).top_p).toBe(0.9);
    const both = convert({ messages: hi, top_p: 0.9, temperature: 0.5 });
    expect(both.temperature).toBe(0.5);
    expect(both).not.toHaveProperty('top_p');
  });

  it('sends stop as a stop_sequences array whether it was a string or an array', () => {
    expect(convert({ messages: hi, stop: 'END' }).stop_sequences).toEqual(['END']);
    expect(convert({ messages: hi, stop: ['a', 'b'] }).stop_sequences).toEqual(['a', 'b']);
    expect(convert({ messages: hi, stop: [] })).not.toHaveProperty('stop_sequences');
  });

  it('sends user as metadata.user_id', () => {
    expect(convert({ messages: hi, user: 'u-42' }).metadata).toEqual({ user_id: 'u-42' });
  });

  it('drops OpenAI-only parameters', () => {
    const body = convert({
      messages: hi,
      n: 2,
      seed: 1,
      presence_penalty: 1,
      frequency_penalty: 1,
      logprobs: true,
      response_format: { type: 'json_object' },
      stream_options: { include_usage: true },
      something_new: true,
    });
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream']);
  });
});
