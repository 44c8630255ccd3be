// The layering ARCHITECTURE.md's table states, checked by `npm run lint` and `npm test`: every
// import a file writes, type-only ones included, and no import circles.
// What loading a file loads (through a package's index too) is checked by .dependency-cruiser-loads.cjs.
const { MUST_NOT_IMPORT, TEST_CODE, src, anyOf, options } = require('./scripts/lib/layers.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...Object.entries(MUST_NOT_IMPORT)
      .filter(([, names]) => names.length > 0)
      .map(([name, names]) => ({
        name: `${name}-must-not-import`,
        comment: `${name} must not import ${names.join(', ')} (ARCHITECTURE.md, "Packages")`,
        severity: 'error',
        // apps/api's tests run a worker; the table allows them to import it.
        from: name === 'api' ? { path: src(name), pathNot: TEST_CODE } : { path: src(name) },
        to: { path: anyOf(names) },
      })),
    {
      name: 'testing-only-in-tests',
      comment: '@switchboard/testing is test support: only test code imports it',
      severity: 'error',
      from: { pathNot: `${TEST_CODE}|${src('testing')}` },
      to: { path: anyOf(['testing']) },
    },
    {
      name: 'through-the-index',
      comment: 'another workspace is entered through its package name (its src/index.ts), never one of its files',
      severity: 'error',
      from: { path: '^((packages|apps)/[^/]+)/' },
      to: { path: '^(packages|apps)/[^/]+/', pathNot: ['^$1/', '^(packages|apps)/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'no-circular',
      comment: 'an import circle: one of its files must take what it needs another way',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'sources-not-builds',
      comment: "a workspace's source imports another's source (tsconfig.depcruise.json), never a dist/ build",
      severity: 'error',
      from: {},
      to: { path: '^(packages|apps)/[^/]+/dist/' },
    },
    {
      name: 'resolvable',
      comment: 'an import the check cannot resolve is an import it cannot check',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: options(true),
};
