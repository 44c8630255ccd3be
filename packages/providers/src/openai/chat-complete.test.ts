import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUpstreamEvent, fromUpstreamResponse, readPlainChunk, readUsageChunk, toUpstreamRequest } from './chat-complete.js';

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
      choicesJson: '[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]',
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

describe('readPlainChunk (the common chunk read without JSON.parse)', () => {
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini' };
  /** The same event with a space before its last brace: JSON alike, but read by JSON.parse. */
  const spaced = (data: string) => ({ event: null, data: `${data.slice(0, -1)} }` });

  it('gives the chunk JSON.parse gives, with the choices text JSON.stringify writes', () => {
    const content = fc.oneof(fc.string(), fc.string({ unit: 'binary' })); // quotes, backslashes; control characters, lone surrogates
    const delta = fc.oneof(
      fc.constant({}),
      fc.record({ content }),
      fc.record({ role: fc.constant('assistant'), content }),
      fc.record({ role: fc.constant('assistant'), content, refusal: fc.constant(null) }),
      fc.record({ content, refusal: fc.constant(null) }),
      fc.constant({ refusal: null }),
    );
    const extra = fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), {
      maxKeys: 3,
    });
    fc.assert(
      fc.property(delta, fc.constantFrom(null, 'stop', 'length'), fc.nat(3), extra, (d, finish, index, more) => {
        const data = JSON.stringify({ ...head, ...more, choices: [{ index, delta: d, logprobs: null, finish_reason: finish }] });
        const chunk = fromUpstreamEvent('up', { event: null, data });
        const parsed = fromUpstreamEvent('up', spaced(data));
        if (!chunk || chunk === 'done' || !parsed || parsed === 'done') throw new Error('no chunk');
        expect(parsed.choicesJson).toBeUndefined();
        expect({ ...chunk, choicesJson: undefined }).toStrictEqual({ ...parsed, choicesJson: undefined });
        if (chunk.choicesJson !== undefined) expect(chunk.choicesJson).toBe(JSON.stringify(chunk.choices));
      }),
    );
  });

  it('takes the usual OpenAI chunks, escapes and all, and leaves any other text to JSON.parse', () => {
    const plain = (choice: unknown, more = {}) => JSON.stringify({ ...head, ...more, choices: [choice] });
    const usual = [
      plain({ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }),
      plain({ index: 0, delta: { content: 'a "quote", a \\ and\na line\t😀 é' }, logprobs: null, finish_reason: null }),
      plain(
        { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
        { service_tier: 'default', system_fingerprint: 'fp' },
      ),
    ];
    for (const data of usual)
      expect(readPlainChunk(data)?.choicesJson, data).toBe(data.slice(data.indexOf('"choices":') + 10, -1));
    const first = plain({
      index: 0,
      delta: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: null,
    });
    expect(readPlainChunk(first)?.choicesJson).toBe(
      '[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]',
    );
    const other = [
      String.raw`{"choices":[{"index":0,"delta":{"content":"\u00e9"},"logprobs":null,"finish_reason":null}]}`, // an escape JSON.stringify would not write
      String.raw`{"choices":[{"index":0,"delta":{"content":"a\/b"},"logprobs":null,"finish_reason":null}]}`,
      `{"choices":[{"index":0,"delta":{"content":"\ud800"},"logprobs":null,"finish_reason":null}]}`, // a lone surrogate, which it escapes
      '{"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":1}}',
      '{"error":{"message":"no"},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":null}]}',
      '{"id":"x","choices":[{"index":0,"delta":{"content":"x","refusal":"no"},"logprobs":null,"finish_reason":null}]}',
      '{"id":"x","choices":[{"index":0,"delta":{,"refusal":null},"logprobs":null,"finish_reason":null}]}', // not JSON
      '{"id":"x","choices":[{"index":99999999999999999999,"delta":{},"logprobs":null,"finish_reason":null}]}',
      '{"id":"x\n","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":null}]}', // not JSON
      '{"id": "x","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":null}]}',
    ];
    // With stream_options.include_usage OpenAI sends `"usage":null` after the choices of every chunk but the last.
    const withUsageNull = `${usual[1]!.slice(0, -1)},"usage":null}`;
    expect(readPlainChunk(withUsageNull)).toStrictEqual(readPlainChunk(usual[1]!));
    expect(fromUpstreamEvent('up', { event: null, data: withUsageNull })).toStrictEqual(
      fromUpstreamEvent('up', { event: null, data: usual[1]! }),
    );
    expect({ ...(fromUpstreamEvent('up', spaced(withUsageNull)) as object), choicesJson: undefined }).toStrictEqual({
      ...(readPlainChunk(withUsageNull) as object),
      choicesJson: undefined,
    });
    for (const data of other) expect(readPlainChunk(data), data).toBeNull();
    expect(() => fromUpstreamEvent('up', { event: null, data: other[4]! })).toThrow(/failed mid-stream: no/);
    expect(() => fromUpstreamEvent('up', { event: null, data: other[6]! })).toThrow(/not JSON/);
    expect(() => fromUpstreamEvent('up', { event: null, data: other[8]! })).toThrow(/not JSON/);
  });
});

describe('readUsageChunk (the usage chunk with only its usage parsed)', () => {
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini' };
  /** What fromUpstreamEvent makes of an event, or the message it throws. */
  const outcome = (data: string) => {
    try {
      return { chunk: fromUpstreamEvent('up', { event: null, data }) };
    } catch (err) {
      return { thrown: (err as Error).message };
    }
  };

  it('gives the chunk (or the error) JSON.parse gives, whatever the usage holds', () => {
    const count = fc.oneof(fc.nat(), fc.constant(-1), fc.constant(1.5), fc.string(), fc.constant(null));
    const usage = fc.oneof(
      fc.record(
        {
          prompt_tokens: count,
          completion_tokens: count,
          total_tokens: count,
          prompt_tokens_details: fc.record({ cached_tokens: fc.nat(), audio_tokens: fc.nat() }),
          completion_tokens_details: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        },
        { requiredKeys: ['prompt_tokens', 'completion_tokens', 'total_tokens'] },
      ),
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
    );
    const key = fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !['choices', 'usage', 'error'].includes(k));
    const extra = fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 3 });
    fc.assert(
      fc.property(usage, extra, (u, more) => {
        const data = JSON.stringify({ ...head, ...more, choices: [], usage: u });
        // A space before the last brace: JSON alike, but read by JSON.parse.
        const parsed = outcome(`${data.slice(0, -1)} }`);
        expect(outcome(data)).toStrictEqual(parsed);
        expect(readUsageChunk(data) !== null, 'a chunk of the right shape takes the match').toBe('chunk' in parsed);
      }),
    );
  });

  it('leaves any other text to JSON.parse', () => {
    const usage = '{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}';
    const other = [
      `{"id":"x","choices":[],"usage":${usage},"x":{"y":1}}`, // more after the usage: not one value
      `{"id":"x","choices":[],"usage":${usage}}}`, // not JSON
      `{"error":{"message":"no"},"choices":[],"usage":${usage}}`,
      `{"id": "x","choices":[],"usage":${usage}}`,
      `{"id":"x","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":${usage}}`,
    ];
    for (const data of other) expect(readUsageChunk(data), data).toBeNull();
    expect(outcome(other[0]!)).toStrictEqual({
      chunk: { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
    });
    expect(outcome(other[1]!)).toStrictEqual({ thrown: "Upstream 'up' sent a stream event that is not JSON." });
    expect(outcome(other[2]!)).toStrictEqual({ thrown: "Upstream 'up' failed mid-stream: no" });
  });
});
