#!/usr/bin/env node
// The type check (`npm test`, `npm run typecheck`): every workspace's src/, tests included, as its own
// tsconfig.json sees it, in one tsc program per set of compiler options rather than one per
// workspace. Workspaces whose tsconfig.json differ only in rootDir/outDir are checked together, so
// the standard library, @types/node and the other workspaces' declarations are read once per
// program, not thirteen times (about a fifth of the CPU; docs/tests.md). Other workspaces are
// imported through their built declarations (dist/), as in each workspace's own check.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', '.bin', 'tsc');

/** Workspaces grouped by their tsconfig.json's compiler options, rootDir and outDir aside (they only place output). */
const groups = new Map();
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, group))) {
    const dir = join(root, group, name);
    if (!existsSync(join(dir, 'tsconfig.json'))) continue;
    const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    const { rootDir: _rootDir, outDir: _outDir, ...options } = config.compilerOptions ?? {};
    const key = JSON.stringify({ extends: join(dir, config.extends ?? ''), options });
    const entry = groups.get(key) ?? { extends: join(dir, config.extends), options, include: [] };
    for (const pattern of config.include ?? ['src']) entry.include.push(join(dir, pattern));
    groups.set(key, entry);
  }
}

// Inside the repository, so tsc finds node_modules/@types from the project file as from the workspaces.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const temp = mkdtempSync(join(root, 'node_modules', '.cache', 'typecheck-'));
const runs = [...groups.values()].map((group, i) => {
  const project = join(temp, `tsconfig.${i}.json`);
  const compilerOptions = { ...group.options, noEmit: true };
  writeFileSync(project, JSON.stringify({ extends: group.extends, compilerOptions, include: group.include }));
  return new Promise((resolve) => {
    const child = spawn(tsc, ['-p', project, '--pretty'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => out.push(chunk));
    child.on('close', (code) => resolve({ ok: code === 0, out: Buffer.concat(out) }));
  });
});
// The programs at once (one core each); their reports printed whole, one after the other.
const results = await Promise.all(runs);
rmSync(temp, { recursive: true, force: true });
for (const { out } of results) process.stdout.write(out);
if (results.some((result) => !result.ok)) {
  console.error('switchboard: the type check failed; see above');
  process.exit(1);
}
