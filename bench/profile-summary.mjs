#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from --cpu-prof): where the time went, by package or file and by
// function (self time), so a note can say where a target is missed. Usage:
//   node bench/profile-summary.mjs <file.cpuprofile> [rows] [from-ms]
// from-ms: skip the samples of the first from-ms milliseconds (start-up, module loading), so a
// short run shows its steady state.
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const fromMs = Number(process.argv[4] ?? 0);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  elapsedUs += profile.timeDeltas?.[i] ?? 0;
  if (elapsedUs < fromMs * 1000) return;
  total++;
  self.set(id, (self.get(id) ?? 0) + 1);
});

/** Where a function lives: a package name for node_modules, our package for ours, node: for Node. */
function place(url) {
  if (!url) return '(native, gc)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const ours = /\/(apps|packages)\/([^/]+)\//.exec(url);
  if (ours) return `@switchboard/${ours[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0].replace(/^node:internal$/, 'node:internal');
  return url;
}

const byPlace = new Map();
const byFunction = new Map();
for (const [id, count] of self) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)') continue; // busy time only
  const where = place(callFrame.url);
  byPlace.set(where, (byPlace.get(where) ?? 0) + count);
  const name = `${callFrame.functionName || '(anonymous)'} ${where === '(native, gc)' ? '' : `${callFrame.url.split('/').slice(-1)[0]}:${callFrame.lineNumber + 1}`}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + count);
}
const idle = [...self].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((s, [, c]) => s + c, 0);
const busy = total - idle;
const pct = (n) => `${((100 * n) / busy).toFixed(1)}%`.padStart(6);
console.log(`${file}: ${total} samples, ${busy} busy (percentages are of busy time)\n`);
console.log('by package / file (self time):');
for (const [where, n] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  console.log(`  ${pct(n)}  ${where}`);
}
console.log('\nby function (self time):');
for (const [name, n] of [...byFunction]
  .sort((a, b) => b[1] - a[1])
  .filter(([name]) => !name.startsWith('(idle)'))
  .slice(0, rows)) {
  console.log(`  ${pct(n)}  ${name}`);
}
