import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOOK_MESSAGE_VERSION, queuedMessageSchema } from './hook-message.js';
import { queuedMessageCheck } from './queued-message-check.js';

const isPlainQueuedMessage = queuedMessageCheck(HOOK_MESSAGE_VERSION);

// Values near the edges of each field: right and wrong types, null, lengths at and past a limit.
const odd = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -3, max: 5 }),
  fc.constantFrom(0.5, 1e300, 3, 4, 5),
  fc.string({ maxLength: 3 }),
  fc.constantFrom('', 'x'.repeat(256), 'x'.repeat(257), 'x'.repeat(4097), '__proto__'),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.constant({ __proto__: 'x' }),
  fc.constant({ a: null }),
  fc.constant({ a: [1] }),
);
// Mostly well-formed, so that both paths are taken often; now and then an odd value anywhere.
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 30 }, { arbitrary: odd, weight: 1 });
// Mostly absent, now and then a good or an odd value.
const seldom = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: good, weight: 2 }, { arbitrary: odd, weight: 1 });
const target = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 4 }), fc.constant('__proto__')),
  fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.boolean()),
  { maxKeys: 3 },
);
const text = (max: number) => fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1)));
const message = fc.record(
  {
    action: mostly(fc.constantFrom('chat', 'reset', 'say', 'remember', 'other')),
    text: mostly(fc.string({ maxLength: 4 })),
    from: mostly(fc.string({ maxLength: 4 })),
    fromName: seldom(text(256)),
    place: seldom(fc.constantFrom('direct', 'group', 'dm')),
    addressed: seldom(fc.boolean()),
    reply: seldom(text(4096)),
    media: seldom(fc.constant([{ kind: 'image', ref: 'r' }])),
    conversation: mostly(fc.string({ maxLength: 4 })),
    dedupeKey: mostly(fc.oneof(fc.constant(null), fc.string({ maxLength: 4 }))),
    replyTo: mostly(target),
    deliverVia: seldom(
      fc.record({ hook: mostly(fc.string({ maxLength: 3 })), target: mostly(target), extra: seldom(odd) }, { requiredKeys: [] }),
    ),
    extra: seldom(odd),
  },
  { requiredKeys: ['action', 'text', 'from', 'conversation', 'dedupeKey', 'replyTo'] },
);
const queued = fc.record(
  {
    v: mostly(fc.constantFrom(HOOK_MESSAGE_VERSION, HOOK_MESSAGE_VERSION, HOOK_MESSAGE_VERSION, 3)),
    hook: mostly(fc.string({ maxLength: 4 })),
    message: mostly(message),
    receivedAt: mostly(fc.oneof(fc.integer(), fc.double())),
    waits: mostly(fc.boolean()),
    trace: seldom(text(256)),
    after: seldom(odd),
  },
  { requiredKeys: ['v', 'hook', 'message', 'receivedAt', 'waits'] },
);
// JSON.parse output is what the check sees (BullMQ's job data): no undefined values, no -0, no NaN.
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('the fast check of a queued hook message agrees with its zod schema', () => {
  it('accepts only what the schema accepts, as it would return it', () => {
    let fast = 0;
    fc.assert(
      fc.property(queued.map(asJson), (json) => {
        if (!isPlainQueuedMessage(json)) return;
        fast++;
        expect(queuedMessageSchema.safeParse(json)).toEqual({ success: true, data: json });
      }),
      { numRuns: 5000 },
    );
    expect(fast).toBeGreaterThan(100); // the generator reaches the fast path, so the property says something
  });

  it('takes the common message, and leaves files and unknown keys to the schema', () => {
    const common = {
      v: HOOK_MESSAGE_VERSION,
      hook: 'bench',
      message: { action: 'chat', text: 'hi', from: 'u', conversation: 'u', dedupeKey: null, replyTo: {} },
      receivedAt: 1_700_000_000_000,
      waits: false,
    };
    expect(isPlainQueuedMessage(common)).toBe(true);
    expect(isPlainQueuedMessage({ ...common, trace: '00-abc-def-01' })).toBe(true);
    const via = { hook: 'team', target: { channel: 'C9', n: 1 } };
    expect(isPlainQueuedMessage({ ...common, message: { ...common.message, deliverVia: via } })).toBe(true);
    expect(isPlainQueuedMessage({ ...common, message: { ...common.message, media: [{ kind: 'image', ref: 'r' }] } })).toBe(false);
    expect(isPlainQueuedMessage({ ...common, extra: 1 })).toBe(false); // the schema strips it
    expect(isPlainQueuedMessage({ ...common, message: { ...common.message, dedupeKey: undefined } })).toBe(false);
  });
});
