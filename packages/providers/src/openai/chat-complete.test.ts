import { describe, expect, it } from 'vitest';
import { fromUpstreamEvent, fromUpstreamResponse, toUpstreamRequest } from './chat-complete.js';

const event = (json: unknown) => ({ event: null, data: JSON.stringify(json) });

describe('fromUpstreamEvent', () => {
  it('passes a choice already in its final form on as the parsed object, extra fields kept', () => {
    const chunk = fromUpstreamEvent(
      'up',
      event({ id: 'x', choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }] }),
    );
    expect(chunk).toEqual({
      choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }],
      usage: null,
    });
  });

  it('drops a delta’s null fields, adds a missing index and finish_reason, and keeps the key order', () => {
    const chunk = fromUpstreamEvent(
      'up',
      event({ choices: [{ delta: { role: 'assistant', content: '', refusal: null } }, { index: 1, finish_reason: 'stop' }] }),
    );
    if (!chunk || chunk === 'done') throw new Error('no chunk');
    expect(chunk.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 1, delta: {}, finish_reason: 'stop' },
    ]);
    expect(JSON.stringify(chunk.choices[0])).toBe('{"delta":{"role":"assistant","content":""},"index":0,"finish_reason":null}');
  });

  it('keeps the usage of a usage chunk and reads [DONE] and empty events', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(fromUpstreamEvent('up', event({ choices: [], usage }))).toEqual({ choices: [], usage });
    expect(fromUpstreamEvent('up', { event: null, data: '[DONE]' })).toBe('done');
    expect(fromUpstreamEvent('up', { event: null, data: ' ' })).toBeNull();
  });
});

describe('fromUpstreamResponse', () => {
  it('hands the whole answer on as extra and keeps a final choice as it came', () => {
    const json = {
      id: 'up-1',
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
      system_fingerprint: 'fp',
    };
    const choice = json.choices[0];
    const answer = fromUpstreamResponse('up', json);
    expect(answer.choices[0]).toBe(choice);
    expect(answer.usage).toBeNull();
    expect(answer.extra).toMatchObject({ system_fingerprint: 'fp' });
  });

  it('completes a choice that lacks its index, role, content or finish_reason', () => {
    const answer = fromUpstreamResponse('up', {
      choices: [{ message: {} }, { index: 3, message: { role: 'assistant', content: 'x' }, finish_reason: null }],
    });
    expect(answer.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' },
      { index: 3, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' },
    ]);
  });
});

describe('toUpstreamRequest', () => {
  const messages = [{ role: 'user' as const, content: 'Hi' }];

  it('re-targets the request, leaves out null parameters and, without a stream, stream_options', () => {
    const body = toUpstreamRequest(
      { model: 'a', messages, temperature: null, stream_options: { include_usage: true }, custom: 1 },
      'up-model',
      false,
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual({ model: 'up-model', messages, custom: 1, stream: false });
  });

  it('asks a stream for its usage when the provider wants it, keeping the client’s other options', () => {
    const request = { model: 'a', messages, stream: true, stream_options: { include_usage: false, other: 1 } };
    const body = toUpstreamRequest(request, 'up-model', true, true);
    expect(body).toEqual({ model: 'up-model', messages, stream: true, stream_options: { include_usage: true, other: 1 } });
    expect(request.stream_options.include_usage).toBe(false);
  });
});
