#!/usr/bin/env node
// The layering check (`npm run lint`, `npm test`): dependency-cruiser over every workspace's src/
// in the current directory, twice: every import a file writes (.dependency-cruiser.cjs), and what
// loading a file loads, through other packages' indexes too (.dependency-cruiser-loads.cjs).
import { checkLayering } from './lib/layering.mjs';

const { ok, report } = await checkLayering(process.cwd());
process.stdout.write(report);
if (!ok) {
  console.error('switchboard: an import breaks the layering in ARCHITECTURE.md ("Packages"); see above');
  process.exit(1);
}
