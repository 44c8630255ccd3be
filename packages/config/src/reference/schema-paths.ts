import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  values?: unknown[];
  defaultValue?: unknown;
  discriminator?: string;
};
const def = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = ['optional', 'default', 'nullable', 'pipe', 'prefault', 'readonly', 'nonoptional', 'catch'];

/** What the schema says of one path: the channels (hook variants) it belongs to and its defaults. */
export interface SchemaPath {
  /** For hook keys: the `type` of each variant that has it. */
  channels: Set<string>;
  /** The default of each variant that gives one. */
  defaults: unknown[];
}

/**
 * Every path a config file may write — objects, records (`<name>`), array items (`[]`) and leaves —
 * found by walking the zod schema. `hooks.<name>` is a union with one variant per channel; each
 * path below it records which channels have it.
 */
export function schemaPaths(schema: z.ZodType): Map<string, SchemaPath> {
  const paths = new Map<string, SchemaPath>();
  const visit = (node: z.ZodType, path: string, channel: string | undefined): void => {
    let current = node;
    let defaultValue: unknown;
    let hasDefault = false;
    for (let d = def(current); WRAPPERS.includes(d.type); d = def(current)) {
      if (d.type === 'default' && !hasDefault) {
        hasDefault = true;
        defaultValue = d.defaultValue;
      }
      current = (d.type === 'pipe' ? d.in : d.innerType)!;
    }
    const record = () => {
      if (!path) return;
      const entry = paths.get(path) ?? { channels: new Set<string>(), defaults: [] };
      if (channel) entry.channels.add(channel);
      if (hasDefault) entry.defaults.push(defaultValue);
      paths.set(path, entry);
    };
    const d = def(current);
    const join = (key: string) => (path ? `${path}.${key}` : key);
    if (d.type === 'object') {
      const keys = Object.entries(d.shape ?? {});
      for (const [key, value] of keys) visit(value, join(key), channel);
      record();
      return;
    }
    if (d.type === 'record') {
      visit(d.valueType!, join('<name>'), channel);
      record();
      return;
    }
    if (d.type === 'array') {
      visit(d.element!, `${path}[]`, channel);
      record();
      return;
    }
    if (d.type === 'union' && d.discriminator === 'type' && channel === undefined) {
      // `hooks.<name>`: one variant per channel, told apart by `type`.
      for (const option of d.options ?? []) {
        const type = def(def(option).shape!.type!).values?.[0];
        visit(option, path, String(type));
      }
      return;
    }
    if (d.type === 'union') {
      // A key that takes a string or an object (`apiKeys[]`): the object's keys are paths too.
      for (const option of d.options ?? []) visit(option, path, channel);
      record();
      return;
    }
    record();
  };
  visit(schema, '', undefined);
  return paths;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let d = def(current); WRAPPERS.includes(d.type); d = def(current)) current = (d.type === 'pipe' ? d.in : d.innerType)!;
  return current;
}

/**
 * The keys the reference must document: every key a config file sets as a whole (`limits.maxBodyBytes`,
 * `providers.<name>.apiKey`, `hooks.<name>.botToken`, `routes`), hook keys of every channel included.
 * Lists and maps of plain values count as one key; their items may be documented but need not be.
 */
export function leafKeys(schema: z.ZodType, prefix = ''): string[] {
  const d = def(unwrap(schema));
  if (d.type === 'object') {
    return Object.entries(d.shape ?? {}).flatMap(([key, value]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      const inner = leafKeys(value, path);
      return inner.length ? inner : [path];
    });
  }
  if (d.type === 'record') return leafKeys(d.valueType!, `${prefix}.<name>`);
  if (d.type === 'union') return [...new Set((d.options ?? []).flatMap((option) => leafKeys(option, prefix)))];
  return [];
}
