/**
 * The Node.js major the functions run on: the stack deploys Lambda's `nodejs<major>.x` (infra/function.ts),
 * esbuild builds for it, and npm scripts run on it (the `node` devDependency; test/unit/infra/runtime.test.ts
 * holds the three together). 24 is the newest Lambda runtime CDK knows, deprecated by AWS last (docs/decisions.md).
 */
export const LAMBDA_NODE_MAJOR = 24;

export const NODE_RUNTIME_TARGET = `node${LAMBDA_NODE_MAJOR}`;

/**
 * How every Lambda function is bundled, read by the CDK stack (NodejsFunction) and by the
 * cold-start benchmark, so both measure and ship the same thing. CommonJS with the SDK
 * bundled and `module` entry points preferred loaded fastest on this kind of machine
 * (docs/benchmarks.md measures every bundle against a bare-SDK one built the same way).
 */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: NODE_RUNTIME_TARGET,
  minify: true,
  // No source maps: they would only help with --enable-source-maps, which slows every stack
  // trace and the cold start; errors are logged by code and message (docs/decisions.md).
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: [] as string[],
  legalComments: 'none',
} as const;

export const handlerEntry = (functionName: string): string => `functions/${functionName}/handler.ts`;
