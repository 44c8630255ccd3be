/**
 * The small checks the fast paths of chat-request.ts and chat-response.ts are built from; each
 * answers as the zod type it stands for would (`z.int()` is a safe integer, `.nullish()` takes
 * undefined and null, an object is not an array).
 */
export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const isBoolean = (value: unknown) => typeof value === 'boolean';
export const isOptionalString = (value: unknown) => value === undefined || typeof value === 'string';
/** `check`, or undefined or null. */
export const nullishOr = (check: (value: unknown) => boolean) => (value: unknown) =>
  value === undefined || value === null || check(value);
export const isNullishString = nullishOr((value) => typeof value === 'string');
export const numberIn = (min: number, max: number) => (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
export const intIn = (min: number, max: number) => (value: unknown) =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
/** A token count: a safe integer ≥ 0. */
export const isCount = intIn(0, Number.MAX_SAFE_INTEGER);
