import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { API_ONLY_VARIABLES, ENV_VARIABLES } from './env-variables.js';
import { referencedVariables } from './interpolate.js';
import { loadSettings } from './settings.js';

/**
 * The Docker recipe, checked without Docker (which cannot run here): docker-compose.yml, the
 * `.env.example` an operator copies to `.env`, and the example config must fit together, so that
 * `docker compose up` starts instead of crash-looping on a variable that never arrives.
 * scripts/docker-replay.mjs (CI) replays the Dockerfile and starts both processes from the copy.
 */
const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

const serviceSchema = z.looseObject({
  command: z.array(z.string()).optional(),
  env_file: z.union([z.string(), z.array(z.string())]).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  stop_grace_period: z.string().optional(),
});
const compose = z.object({ services: z.record(z.string(), serviceSchema) }).parse(parse(read('docker-compose.yml')));
const exampleConfig = read('config/switchboard.example.yaml');
/** The example's values (its comments mention `${VAR}` too), as the config loader reads them. */
const exampleValues = JSON.stringify(parse(exampleConfig));

/** `.env.example` as `.env`: the variables it sets, and those it lists commented out (optional). */
function envExample() {
  const set: Record<string, string> = {};
  const listed = new Set<string>();
  for (const line of read('.env.example').split('\n')) {
    const active = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (active) set[active[1]!] = active[2]!;
    const named = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (named) listed.add(named[1]!);
  }
  return { set, listed };
}

const processServices = ['api', 'worker'] as const;

describe('docker-compose.yml, .env.example and the example config', () => {
  const env = envExample();

  it('gives both processes .env, and sets nothing to an empty string', () => {
    for (const name of processServices) {
      const service = compose.services[name]!;
      expect([service.env_file].flat()).toContain('.env');
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        expect({ key, value }).not.toEqual({ key, value: '' });
        expect(value).not.toMatch(/\$\{/); // compose would pass an unset variable as an empty string
      }
    }
  });

  it('brings every variable the processes read to both of them, through .env or compose', () => {
    for (const name of processServices) {
      const service = compose.services[name]!;
      const read = ENV_VARIABLES.filter((v) => name === 'api' || !API_ONLY_VARIABLES.includes(v));
      const missing = read.filter((v) => !(v in (service.environment ?? {})) && !env.listed.has(v));
      expect({ service: name, missing }).toEqual({ service: name, missing: [] });
    }
  });

  it('sets in .env.example every variable the example config needs, and lists the optional ones', () => {
    const named = referencedVariables(exampleValues);
    expect(named.length).toBeGreaterThan(0);
    for (const variable of named) expect(env.listed).toContain(variable);
    const required = [...exampleValues.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
    for (const variable of required) expect(Object.keys(env.set)).toContain(variable);
  });

  it('starts with the example config and .env.example as they are, API keys on', () => {
    const container = { ...env.set, ...compose.services.api!.environment };
    // The container path /app/config/switchboard.yaml is the example, copied as the recipe says.
    expect(container.SWITCHBOARD_CONFIG).toBe('/app/config/switchboard.yaml');
    const settings = loadSettings({
      ...container,
      SWITCHBOARD_CONFIG: new URL('config/switchboard.example.yaml', root).pathname,
    });
    expect(Object.keys(settings.config.providers)).toEqual(['openai', 'ollama', 'claude']);
    expect(settings.config.apiKeys.length).toBeGreaterThan(0);
    expect(settings.warnings).toEqual([]);
  });

  it('runs Redis as BullMQ requires for no data loss: append-only file on, no eviction', () => {
    const command = compose.services.redis!.command?.join(' ') ?? '';
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
  });

  it('gives each process more time to stop than its own bound (30 s drain or grace, plus 5 s)', () => {
    for (const name of processServices) {
      const grace = compose.services[name]!.stop_grace_period ?? '10s';
      expect(Number(/^(\d+)s$/.exec(grace)?.[1])).toBeGreaterThanOrEqual(35);
    }
  });
});
