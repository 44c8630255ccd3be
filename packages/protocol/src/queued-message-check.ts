import { isBoolean, isObject, type JsonObject } from './json-checks.js';

/*
 * The common queued hook message of the current version, checked without zod's copy of every
 * object: the worker reads one per job, the job view one per read. `isPlainQueuedMessage`
 * accepts exactly what `queuedMessageSchema` would return unchanged; a message with files
 * (`media`), a key the schema does not know (which it would strip), or anything out of place goes
 * through the schema, which decides. queued-message-check.test.ts holds the two to the same answers.
 */
type Check = (value: unknown) => boolean;

const isString = (value: unknown) => typeof value === 'string';
const stringUpTo = (max: number) => (value: unknown) => typeof value === 'string' && value.length <= max;
const oneOf = (...values: string[]) => {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return (value: unknown) => allowed.has(value);
};
/** `z.record(z.string(), z.union([z.string(), z.number()]))`; a `__proto__` key is left to zod. */
const isTarget = (value: unknown) => {
  if (!isObject(value)) return false;
  for (const key in value) {
    const entry = value[key];
    if (key === '__proto__' || !(typeof entry === 'string' || (typeof entry === 'number' && Number.isFinite(entry))))
      return false;
  }
  return true;
};

/** An object holding every `required` key and no key that `checks` lacks, each value passing its check. */
const exactObject = (checks: Record<string, Check>, required: readonly string[]) => (value: unknown) => {
  if (!isObject(value)) return false;
  for (const key of required) if (!Object.hasOwn(value, key)) return false;
  for (const key in value) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (!check?.((value as JsonObject)[key])) return false;
  }
  return true;
};

const isDeliverVia = exactObject({ hook: (value) => typeof value === 'string' && value.length > 0, target: isTarget }, [
  'hook',
  'target',
]);

const isPlainMessage = exactObject(
  {
    action: oneOf('chat', 'reset', 'say', 'remember'),
    text: isString,
    from: isString,
    fromName: stringUpTo(256),
    place: oneOf('direct', 'group'),
    addressed: isBoolean,
    reply: stringUpTo(4096),
    conversation: isString,
    dedupeKey: (value) => value === null || typeof value === 'string',
    replyTo: isTarget,
    deliverVia: isDeliverVia,
  },
  ['action', 'text', 'from', 'conversation', 'dedupeKey', 'replyTo'],
);

/** True when `data` is a queued message (version `version`, without files) the schema would return unchanged. */
export const queuedMessageCheck = (version: number) =>
  exactObject(
    {
      v: (value) => value === version,
      hook: isString,
      message: isPlainMessage,
      receivedAt: (value) => typeof value === 'number' && Number.isFinite(value),
      waits: isBoolean,
      trace: stringUpTo(256),
    },
    ['v', 'hook', 'message', 'receivedAt', 'waits'],
  );
