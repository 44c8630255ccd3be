import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isPlainUpstreamChunk,
  isPlainUpstreamCompletion,
  readUpstreamChunk,
  readUpstreamCompletion,
  upstreamChunkSchema,
  upstreamCompletionSchema,
} from './chat-response.js';

// Values near the edges of each field: right and wrong types, null, absent, unsafe integers.
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer({ min: -3, max: 5 }),
  fc.constantFrom(1.5, Number.MAX_SAFE_INTEGER + 2, -0),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
// Mostly well-formed, so that both paths are taken often; now and then an odd value anywhere.
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: odd, weight: 1 });
const count = mostly(fc.nat({ max: 1000 }));
const text = mostly(fc.string({ maxLength: 8 }));
const usage = mostly(
  fc.record(
    {
      prompt_tokens: count,
      completion_tokens: count,
      total_tokens: count,
      prompt_tokens_details: fc.constant({ cached_tokens: 0 }),
    },
    { requiredKeys: [] },
  ),
);
const message = mostly(fc.record({ role: text, content: text, refusal: odd }, { requiredKeys: [] }));
const choice = (inner: 'message' | 'delta') =>
  mostly(fc.record({ index: count, [inner]: message, finish_reason: text, logprobs: odd }, { requiredKeys: [] }));
const body = (inner: 'message' | 'delta') =>
  mostly(
    fc.record(
      { id: text, choices: mostly(fc.array(choice(inner), { maxLength: 3 })), usage, system_fingerprint: text },
      { requiredKeys: [] },
    ),
  );
// JSON.parse output is what the checks see: no undefined values, no -0.
const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

describe('the fast reads of upstream answers agree with the zod schemas', () => {
  it('accept only what the completion schema accepts, as it would return it', () => {
    fc.assert(
      fc.property(body('message').map(asJson), (json) => {
        const zod = upstreamCompletionSchema.safeParse(json);
        if (isPlainUpstreamCompletion(json)) expect(zod).toEqual({ success: true, data: json });
        expect(readUpstreamCompletion(json)).toEqual(zod.success ? zod.data : null);
      }),
      { numRuns: 3000 },
    );
  });

  it('accept only what the chunk schema accepts, as it would return it', () => {
    fc.assert(
      fc.property(body('delta').map(asJson), (json) => {
        const zod = upstreamChunkSchema.safeParse(json);
        if (isPlainUpstreamChunk(json)) expect(zod).toEqual({ success: true, data: json });
        expect(readUpstreamChunk(json)).toEqual(zod.success ? zod.data : null);
      }),
      { numRuns: 3000 },
    );
  });

  it('take the common answers on the fast path', () => {
    const completion = {
      id: 'x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    expect(isPlainUpstreamCompletion(completion)).toBe(true);
    expect(isPlainUpstreamChunk({ choices: [{ index: 0, delta: { content: 'h' }, finish_reason: null }] })).toBe(true);
    expect(isPlainUpstreamChunk({ choices: [], usage: completion.usage })).toBe(true);
    // Missing `choices` is defaulted by the schema, so it is not the fast path's to answer.
    expect(isPlainUpstreamChunk({ usage: completion.usage })).toBe(false);
    expect(readUpstreamChunk({ usage: completion.usage })).toEqual({ choices: [], usage: completion.usage });
  });
});
