import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** The same members in another order, at every level. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).reverse()) out[key] = reordered((value as Record<string, unknown>)[key]);
  return out;
}

describe('canonicalJson (the response cache key text)', () => {
  it('writes keys sorted at every level, arrays in their own order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('gives two requests that differ only in key order the same text', () => {
    const one = { model: 'm', temperature: 0, messages: [{ role: 'user', content: 'hi' }] };
    const two = { messages: [{ content: 'hi', role: 'user' }], temperature: 0, model: 'm' };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it('drops members set to undefined, as an absent member', () => {
    expect(canonicalJson({ model: 'm', user: undefined })).toBe(canonicalJson({ model: 'm' }));
  });

  it('tells apart requests that differ in a value, in array order, or in a key named __proto__', () => {
    expect(canonicalJson({ temperature: 0 })).not.toBe(canonicalJson({ temperature: 1 }));
    expect(canonicalJson({ input: ['a', 'b'] })).not.toBe(canonicalJson({ input: ['b', 'a'] }));
    const parsed = JSON.parse('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson(parsed)).not.toBe(canonicalJson({ a: 1 }));
  });

  it('holds any JSON value as it is, whatever the order of its keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(reordered(value))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
});
