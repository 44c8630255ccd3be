#!/usr/bin/env node
// `npm run docs`: build if needed, then rewrite the generated tables of docs/configuration.md from
// the config schema (packages/config/src/reference). A unit test fails when the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ensureInstalled, root } from './lib/run.mjs';

ensureInstalled();
build();
const dist = (path) => pathToFileURL(join(root, 'packages/config/dist', path)).href;
const { renderConfigurationDoc } = await import(dist('reference/render-reference.js'));
const { configSchema } = await import(dist('schema.js'));
const file = join(root, 'docs/configuration.md');
const before = readFileSync(file, 'utf8');
const after = renderConfigurationDoc(before, configSchema);
if (after === before) {
  console.log('docs/configuration.md is up to date');
} else {
  writeFileSync(file, after);
  console.log('docs/configuration.md rewritten from the config schema');
}
