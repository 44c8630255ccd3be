#!/usr/bin/env node
// The layering check (`npm run lint`, `npm test`): dependency-cruiser over every workspace's src/
// in the current directory, twice: every import a file writes (.dependency-cruiser.cjs), and what
// loading a file loads, through other packages' indexes too (.dependency-cruiser-loads.cjs).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const sources = ['packages', 'apps'].flatMap((group) =>
  existsSync(group)
    ? readdirSync(group)
        .map((name) => `${group}/${name}/src`)
        .filter((dir) => existsSync(dir))
    : [],
);

const check = (config) =>
  new Promise((resolve) => {
    const child = spawn(depcruise, ['--config', join(root, config), '--output-type', 'err', ...sources], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', (code) => resolve({ ok: code === 0, out }));
  });

// Both at once (each mostly waits on its own parse); their reports printed whole, one after the other.
const results = await Promise.all([check('.dependency-cruiser.cjs'), check('.dependency-cruiser-loads.cjs')]);
for (const { out } of results) process.stdout.write(out);
if (results.some((result) => !result.ok)) {
  console.error('switchboard: an import breaks the layering in ARCHITECTURE.md ("Packages"); see above');
  process.exit(1);
}
