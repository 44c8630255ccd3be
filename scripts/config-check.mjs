#!/usr/bin/env node
// `npm run config:check`: build if needed, then `node apps/api/dist/main.js --check` — validate the
// configuration (environment + SWITCHBOARD_CONFIG) and print what it means, secrets masked.
// Exit code 0 when it is valid, 78 when it is not. Build output goes to stderr; stdout is the report.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureInstalled, root } from './lib/run.mjs';

ensureInstalled({ toStderr: true });
build({ toStderr: true });
const check = spawnSync(process.execPath, [join(root, 'apps/api/dist/main.js'), '--check'], { stdio: 'inherit' });
process.exit(check.status ?? 1);
