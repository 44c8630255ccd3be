// What loading a file loads: a product file of a workspace must not load, directly or through any
// chain of imports (another package's index included), what its workspace must not import.
// Type-only imports load nothing, so they are left out here (.dependency-cruiser.cjs checks them).
// (`import { type A } from 'x'` would still load x under verbatimModuleSyntax, and this pass would not see it;
// biome's useImportType fails it, asking for `import type`.)
const { MUST_NOT_IMPORT, TEST_CODE, src, indexOf, options } = require('./scripts/lib/layers.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: Object.entries(MUST_NOT_IMPORT)
    .filter(([, names]) => names.length > 0)
    .map(([name, names]) => ({
      name: `${name}-must-not-load`,
      comment: `loading ${name} must not load ${names.join(', ')} (ARCHITECTURE.md, "Packages")`,
      severity: 'error',
      from: { path: src(name), pathNot: TEST_CODE },
      // Their indexes stand for them: .dependency-cruiser.cjs lets no file in by another way.
      to: { path: indexOf(names), reachable: true },
    })),
  options: options(false),
};
