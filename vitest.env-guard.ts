import { afterAll, beforeAll } from 'vitest';

/**
 * `unit` and `integration` files share their worker's process (`isolate: false`), so an
 * environment variable one file sets and does not put back is seen by the next (a TMPDIR restored
 * as the string "undefined" once broke 25 tests in other files). This fails the file that leaves
 * `process.env` changed, naming the variables.
 */
let before: Record<string, string | undefined> = {};

beforeAll(() => {
  before = { ...process.env };
});

afterAll(() => {
  const names = new Set([...Object.keys(before), ...Object.keys(process.env)]);
  const changed = [...names].filter((name) => !name.startsWith('VITEST') && before[name] !== process.env[name]);
  if (changed.length > 0) {
    throw new Error(`this file left process.env changed (${changed.join(', ')}): files share a process, put back what you set`);
  }
});
