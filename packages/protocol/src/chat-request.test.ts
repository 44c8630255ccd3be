import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatCompletionRequestSchema, isPlainChatRequest } from './chat-request.js';

// Values near the edges of each parameter: right and wrong types, null, absent, out of range.
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer({ min: -3, max: 300 }),
  // Each range's edges and just past them.
  fc.constantFrom(0, 1, 2, 20, 21, 128, 129, 0.5, 1.5, 2.5, -2, -2.5, -0.1, Number.MAX_SAFE_INTEGER + 2, 1e300),
  fc.constantFrom(0, 2.5, 129, -2.5, 21, -0.1),
  fc.string({ maxLength: 3 }),
  fc.constant('x'.repeat(257)),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.constant({ include_usage: 'yes' }),
  fc.constant([{ type: 'text', text: 'hi' }]),
);
// Mostly well-formed, so that both paths are taken often; now and then an odd value anywhere.
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 8 }, { arbitrary: odd, weight: 1 });
// Mostly absent, now and then an odd value.
const seldom = fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: odd, weight: 1 });
const message = mostly(
  fc.record(
    {
      role: mostly(fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function')),
      content: mostly(fc.string({ maxLength: 8 })),
      name: seldom,
      tool_call_id: seldom,
      tool_calls: seldom,
      extra: seldom,
    },
    { requiredKeys: ['role', 'content'] },
  ),
);
const request = mostly(
  fc.record(
    {
      model: mostly(fc.constantFrom('gpt-4o-mini', 'openai/gpt-4o', '')),
      messages: mostly(fc.array(message, { minLength: 1, maxLength: 3 })),
      stream: mostly(fc.boolean()),
      stream_options: mostly(fc.record({ include_usage: fc.boolean() }, { requiredKeys: [] })),
      temperature: mostly(fc.double({ min: 0, max: 2, noNaN: true })),
      top_p: seldom,
      n: mostly(fc.integer({ min: 1, max: 128 })),
      max_tokens: mostly(fc.integer({ min: 1, max: 4096 })),
      max_completion_tokens: seldom,
      presence_penalty: seldom,
      frequency_penalty: seldom,
      logprobs: seldom,
      top_logprobs: seldom,
      seed: mostly(fc.integer()),
      user: mostly(fc.string({ maxLength: 8 })),
      parallel_tool_calls: seldom,
      stop: seldom,
      tools: seldom,
      tool_choice: seldom,
      logit_bias: seldom,
      response_format: seldom,
      reasoning_effort: seldom,
    },
    { requiredKeys: [] },
  ),
);
// JSON.parse output is what the check sees: no undefined values, no -0.
const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

describe('the fast check of a chat request agrees with its zod schema', () => {
  it('accepts only what the schema accepts, as it would return it', () => {
    let fast = 0;
    fc.assert(
      fc.property(request.map(asJson), (json) => {
        if (!isPlainChatRequest(json)) return;
        fast++;
        expect(chatCompletionRequestSchema.safeParse(json)).toEqual({ success: true, data: json });
      }),
      { numRuns: 4000 },
    );
    expect(fast).toBeGreaterThan(100); // the generator reaches the fast path, so the property says something
  });

  it('agrees with the schema on every parameter at and just past its edges', () => {
    const edges = [
      ...[null, 0, 1, 2, 20, 21, 128, 129, 256, 0.5, 1.5, 2.5, -1, -2, -2.5, -0.1, -100, 101, 1e300],
      ...[Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.MIN_SAFE_INTEGER - 2],
      ...['', 'x', 'x'.repeat(256), 'x'.repeat(257), true, false, {}, [], ['a'], { include_usage: true }, { include_usage: 1 }],
    ];
    const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    let fast = 0;
    for (const name of Object.keys(chatCompletionRequestSchema.shape)) {
      for (const value of edges) {
        const json = asJson({ ...base, [name]: value });
        const zod = chatCompletionRequestSchema.safeParse(json);
        if (isPlainChatRequest(json)) {
          fast++;
          expect(zod, `${name}: ${JSON.stringify(value)}`).toEqual({ success: true, data: json });
        }
      }
    }
    expect(fast).toBeGreaterThan(50);
  });

  it('takes the common request, and leaves the rest to the schema', () => {
    const common = { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, temperature: 0.2 };
    expect(isPlainChatRequest(common)).toBe(true);
    expect(isPlainChatRequest({ messages: common.messages })).toBe(false); // the schema supplies `default`
    expect(isPlainChatRequest({ ...common, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).toBe(false);
    expect(isPlainChatRequest({ ...common, tools: [] })).toBe(false);
  });
});
