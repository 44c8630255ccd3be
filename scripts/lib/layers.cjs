// ARCHITECTURE.md's "must not import" column as data, for the dependency-cruiser rule sets
// (.dependency-cruiser.cjs: every import; .dependency-cruiser-loads.cjs: what loading a file loads).

/** Every workspace and the folder its source lives in. */
const SOURCES = {
  protocol: 'packages/protocol',
  http: 'packages/http',
  channels: 'packages/channels',
  config: 'packages/config',
  providers: 'packages/providers',
  hub: 'packages/hub',
  state: 'packages/state',
  logger: 'packages/logger',
  testing: 'packages/testing',
  metrics: 'packages/metrics',
  tracing: 'packages/tracing',
  tools: 'packages/tools',
  api: 'apps/api',
  worker: 'apps/worker',
};

const everyOther = (name) => Object.keys(SOURCES).filter((other) => other !== name && other !== 'testing');
const APPS = ['api', 'worker'];

/**
 * What each workspace must not import, as the table says. `testing` is left out here: no product
 * code may import it, and any test may (rule `testing-only-in-tests`).
 */
const MUST_NOT_IMPORT = {
  protocol: everyOther('protocol'),
  http: everyOther('http'),
  channels: ['config', 'hub', 'state', 'providers', ...APPS],
  config: ['hub', 'state', 'providers', ...APPS],
  providers: ['channels', 'hub', 'state', ...APPS],
  hub: ['channels', 'providers', 'state', ...APPS],
  state: ['channels', 'hub', 'providers', ...APPS],
  logger: everyOther('logger').filter((name) => name !== 'protocol'),
  metrics: everyOther('metrics'),
  tracing: everyOther('tracing'),
  tools: ['channels', 'hub', 'state', 'providers', ...APPS],
  testing: [],
  api: ['worker'], // its tests may (they run a worker)
  worker: ['api'],
};

/** Test code: test files, their fixtures and test-support folders; never part of a build. */
const TEST_CODE = '(\\.test\\.ts$|/__fixtures__/|/test-support/)';

const src = (name) => `^${SOURCES[name]}/src/`;
const anyOf = (names) => `^(${names.map((name) => `${SOURCES[name]}/`).join('|')})`;
/** Their indexes: the only way in from another workspace (rule `through-the-index`). */
const indexOf = (names) => `^(${names.map((name) => SOURCES[name]).join('|')})/src/index\\.ts$`;

/** Where `@switchboard/<name>` resolves for the check: its source, never a build (tsconfig.depcruise.json). */
const TS_CONFIG = 'tsconfig.depcruise.json';

/** Options both rule sets share; the sources are passed on the command line (`packages/*\/src apps/*\/src`). */
const options = (tsPreCompilationDeps) => ({
  doNotFollow: { path: 'node_modules' },
  tsPreCompilationDeps,
  tsConfig: { fileName: TS_CONFIG },
  enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
});

module.exports = { SOURCES, MUST_NOT_IMPORT, TEST_CODE, TS_CONFIG, src, anyOf, indexOf, options };
