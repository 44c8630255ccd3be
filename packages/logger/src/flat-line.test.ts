import fc from 'fast-check';
import { configure } from 'safe-stable-stringify';
import { describe, expect, it } from 'vitest';
import { isoTimestamp, stringifyFlat } from './flat-line.js';

const stringify = configure({});

const flatValue = fc.oneof(
  fc.string({ unit: 'binary' }), // lone surrogates, control characters, quotes, backslashes
  fc.string(),
  fc.double(), // NaN, ±Infinity, -0
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);

describe('stringifyFlat', () => {
  it('writes the bytes safe-stable-stringify writes for any record of flat values', () => {
    const record = fc.dictionary(
      fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('10', '9', 'a', 'B', '_', '__proto__')),
      flatValue,
    );
    fc.assert(
      fc.property(record, (value) => {
        expect(stringifyFlat(value, stringify)).toBe(stringify(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes lines of a few shapes, in any order, as safe-stable-stringify does (the sorted keys are kept per shape)', () => {
    const shapes = [
      ['message', 'method', 'path', 'status', 'ms', 'model', 'request_id', 'level', 'service', 'timestamp'],
      ['message', 'level', 'hook', 'job_id', 'b', 'a'],
      ['z', '1', 'a'],
    ];
    const line = fc
      .tuple(fc.nat(shapes.length - 1), fc.array(flatValue, { minLength: 10, maxLength: 10 }))
      .map(([shape, values]) => Object.fromEntries(shapes[shape]!.map((key, i) => [key, values[i]])));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), (lines) => {
        for (const value of lines) expect(stringifyFlat(value, stringify)).toBe(stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('writes the request line as the logger always has', () => {
    const line = { message: 'request', method: 'POST', path: '/v1/chat/completions', status: 200, ms: 1.5, model: undefined };
    expect(stringifyFlat(line, stringify)).toBe(
      '{"message":"request","method":"POST","ms":1.5,"path":"/v1/chat/completions","status":200}',
    );
  });
});

describe('isoTimestamp', () => {
  it('is toISOString of any time, the second of the one before or not', () => {
    const time = fc.integer({ min: -62_000_000_000_000, max: 253_402_300_799_999 }); // years 0001–9999
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 8 }), fc.nat(2_000), (times, step) => {
        for (const now of times) {
          expect(isoTimestamp(now)).toBe(new Date(now).toISOString());
          expect(isoTimestamp(now + step)).toBe(new Date(now + step).toISOString());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('is the ISO time of now', () => {
    const before = Date.now();
    const stamp = Date.parse(isoTimestamp());
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Date.now());
  });
});
