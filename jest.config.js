// Projects: pure-code unit tests; the suites that build (the CDK app synthesized, the bundles,
// the typed client compiled, the OpenAPI document linted); the integration suite twice, once on
// dynalite (in-process) and once on AWS's own DynamoDB Local when Java is on the PATH, as in CI;
// the artifact tests, which run the bundles `npm run synth` leaves in cdk.out behind the
// template's route keys (the contract suites below again, plus test/artifact); and the browser
// end-to-end tests (e2e) on dynalite.
const { spawnSync } = require('node:child_process');
const { findChromium } = require('./scripts/chromium');

const transform = {
  '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = {
  transform,
  // middy ships ESM only; swc turns it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // The client package's sources import each other by the .js names its build writes (client/tsconfig.json).
  moduleNameMapper: { '^@middy/([^/]+)$': '<rootDir>/node_modules/@middy/$1/index.js', '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/quiet-logs.ts'],
};
const integration = (engine, displayName = engine, testMatch = ['<rootDir>/test/integration/**/*.test.ts'], testPathIgnorePatterns = []) => ({
  ...common,
  displayName,
  testMatch,
  testPathIgnorePatterns: ['/node_modules/', ...testPathIgnorePatterns],
  globalSetup: `<rootDir>/test/support/engine-${engine}.ts`,
  globalTeardown: '<rootDir>/test/support/engine-teardown.ts',
  setupFiles: [...common.setupFiles, `<rootDir>/test/support/use-${engine}.ts`],
  setupFilesAfterEnv: ['<rootDir>/test/support/table.ts'],
});

// The contract suites that hold for the deployed shape too; the rest test local-only settings
// (environment variables a test sets, loopback open mode) or the source's internals.
// record-model runs there on reaction only (its other models are its own); update-operators and
// transaction add the test models (test/support/test-catalog.ts), which reach
// bundles built with them once per run (test/support/artifact/test-model-bundles.ts).
const ARTIFACT_SUITES = [
  'routes',
  'create',
  'read',
  'write',
  'errors',
  'auth',
  'limits',
  'onebot-signed',
  'onebot-unsigned',
  'openapi',
  'client',
  'shards',
  'request-findings',
  'record-model',
  'transaction',
  'preconditions',
  'update-operators',
  'write-stamps',
  'feed-changes',
  'expiry',
];

const javaAvailable = spawnSync('java', ['-version']).status === 0;
// Found here, never installed: `npm test` changes nothing on the machine. `npm run browser`
// installs it, and .ci/run runs that first, so CI always drives the browser (docs/testing.md).
const chromium = findChromium();
if (chromium) process.env.CHROMIUM_PATH = chromium;
else console.warn('jest: no Chromium found, so the e2e project (the /docs page in a browser) does not run; `npm run browser` installs it.');

module.exports = {
  projects: [
    // Pure code only, so `--selectProjects unit` is the quick loop (docs/testing.md).
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    // Suites that run a compiler, a bundler, a synthesis or a linter: in the unit project they
    // were most of its time (docs/testing.md).
    {
      ...common,
      displayName: 'build',
      testMatch: ['<rootDir>/test/build/**/*.test.ts'],
      // The infra tests' syntheses, made once per run (test/support/synth).
      globalSetup: '<rootDir>/test/support/synth/setup.ts',
      globalTeardown: '<rootDir>/test/support/synth/teardown.ts',
    },
    // `npm run bench -- --quick` (about 2 minutes of one worker): its own project, so that
    // `--selectProjects unit` stays quick and jest, which starts the slowest files first, runs
    // it beside the integration suites rather than after them.
    { ...common, displayName: 'bench', testMatch: ['<rootDir>/test/bench/**/*.test.ts'] },
    // The two fault suites that mostly wait for cutoffs (about 200 and 170 s a run) run once per
    // engine that can tell something new: late-writes on DynamoDB Local and, through the
    // artifact project, on dynalite with the bundles; faults, injected inside the SDK and so the
    // same on either engine, on DynamoDB Local. On a machine without Java both run here.
    integration(
      'dynalite',
      'dynalite',
      undefined,
      javaAvailable ? ['/test/integration/late-writes\\.test\\.ts$', '/test/integration/faults\\.test\\.ts$'] : [],
    ),
    ...(javaAvailable ? [integration('ddblocal')] : []),
    integration('artifact', 'artifact', [
      '<rootDir>/test/artifact/**/*.test.ts',
      ...ARTIFACT_SUITES.map((name) => `<rootDir>/test/integration/${name}.test.ts`),
    ]),
    // The docs page driven in headless Chromium.
    ...(chromium ? [integration('dynalite', 'e2e', ['<rootDir>/test/e2e/**/*.test.ts'])] : []),
  ],
  testTimeout: 30_000,
  // Jest's default on 2 cores is one worker, and most integration suites spend their time waiting:
  // on writes a proxy holds past the answer timeout, on functions settling until their cutoff, on
  // an engine's answers. Three workers overlap those waits (a clean-clone run went from 25 to 10
  // minutes); every suite sizes its budgets from the machine's measured speed, so the extra load
  // makes a run slower, never its answers different (docs/testing.md, "Timing").
  maxWorkers: 3,
};
