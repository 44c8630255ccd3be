import type { z } from 'zod';
import type { KeyDoc } from './key-doc.js';
import { CONFIG_DOCS, ENVIRONMENT_DOCS, HOOK_DOCS } from './key-docs.js';
import { type SchemaPath, schemaPaths } from './schema-paths.js';

/**
 * The generated parts of docs/configuration.md. Each sits between `<!-- generated:<name> -->` and
 * `<!-- end generated -->`; `npm run docs` rewrites them, and a test fails when the file on disk
 * differs from what this renders.
 */
const REGION = /(<!-- generated:([a-z-]+) -->\n)[\s\S]*?(<!-- end generated -->)/g;

export function renderConfigurationDoc(markdown: string, schema: z.ZodType): string {
  const paths = schemaPaths(schema);
  const tables: Record<string, () => string> = {
    environment: () =>
      table(
        ['variable', 'default', 'meaning'],
        ENVIRONMENT_DOCS.map((row) => [codes(row.keys), row.default, row.meaning]),
      ),
    keys: () =>
      table(
        ['key', 'default', 'meaning'],
        CONFIG_DOCS.map((row) => [codes(row.keys), row.default, row.meaning]),
      ),
    'hook-keys': () => {
      const all = new Set([...paths.values()].flatMap((path) => [...path.channels]));
      return table(
        ['key', 'channel', 'default', 'meaning'],
        HOOK_DOCS.map((row) => [codes(row.keys), channelsOf(row, paths, all), row.default, row.meaning]),
      );
    },
  };
  return markdown.replace(REGION, (_match, open: string, name: string, close: string) => {
    const render = tables[name];
    if (!render) throw new Error(`docs/configuration.md: no generated table named '${name}'`);
    return `${open}\n${render()}\n\n${close}`;
  });
}

/** Which channels a hook key belongs to, as the schema says: `all`, or their types. */
function channelsOf(row: KeyDoc, paths: Map<string, SchemaPath>, all: Set<string>): string {
  const channels = new Set(row.keys.flatMap((key) => [...(paths.get(key)?.channels ?? [])]));
  return channels.size === all.size ? 'all' : [...all].filter((type) => channels.has(type)).join(', ');
}

const codes = (keys: readonly string[]) => keys.map((key) => `\`${key}\``).join(', ');

/** A Markdown table with its columns padded, so the file reads as a table too. */
function table(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => cell.replaceAll('|', '\\|')));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const [head, ...body] = cells;
  return [line(head!), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n');
}
