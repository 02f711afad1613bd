import type { BuildOptions, Metafile } from 'esbuild';
import { FUNCTION_DESCRIPTORS, type FunctionName } from '../shared/manifest/functions';

/**
 * How every Lambda function is bundled, read by the CDK app (infra/function-bundle.ts) and by the
 * cold-start benchmark, so both measure and ship the same thing: the SDK bundled, `module` entry
 * points preferred, minified, as ES modules split into chunks. esbuild splits only ES modules
 * (https://esbuild.github.io/api/#splitting), and a split bundle loads at init only its entry and
 * the chunks that entry imports statically: what the code and the SDK load with `import()` (the
 * receiver's S3 and SQS clients, the SDK's credential providers) stays on disk until first used.
 */
/**
 * The Node.js major the functions run on: the stack deploys Lambda's `nodejs<major>.x` (infra/service-function.ts),
 * esbuild builds for it, and npm scripts run on it (the `node` devDependency; test/build/infra/runtime.test.ts
 * holds the three together). 24 is the newest Lambda runtime CDK knows, deprecated by AWS last (docs/decisions.md).
 */
export const LAMBDA_NODE_MAJOR = 24;

export const NODE_RUNTIME_TARGET = `node${LAMBDA_NODE_MAJOR}`;

/** Lambda's Node.js runtime takes `index.handler` from index.mjs as an ES module. */
export const BUNDLE_ENTRY = 'index.mjs';

export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  target: NODE_RUNTIME_TARGET,
  minify: true,
  // No source maps: they would only help with --enable-source-maps, which slows every stack
  // trace and the cold start; errors are logged by code and message (docs/decisions.md).
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: [] as string[],
  legalComments: 'none',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // No banner: a banner is repeated at the top of every chunk, and a `require`/`__dirname` one cost
  // each record function 4-7 KiB of its cold start for code that never calls them (docs/decisions.md).
} as const;

/** The OpenAPI document's file in the openapi function's bundle (shared/openapi/serve.ts). */
export const OPENAPI_DOCUMENT_FILE = 'openapi.json';

/** Constants written into a function's code when it is bundled (esbuild's define). */
function definesFor(name: string): Record<string, string> {
  return FUNCTION_DESCRIPTORS[name as FunctionName]?.openApiDocument ? { OPENAPI_DOCUMENT_FILE: JSON.stringify(OPENAPI_DOCUMENT_FILE) } : {};
}

export const handlerEntry = (functionName: string): string => `functions/${functionName}/handler.ts`;

/** esbuild's options for one function's bundle (or the benchmark's baseline), written into `outdir` as index.mjs and its chunks. */
export function buildOptionsFor(name: string, outdir: string, entry = handlerEntry(name)): BuildOptions {
  return {
    ...ESBUILD_OPTIONS,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    external: [...ESBUILD_OPTIONS.external],
    outExtension: { ...ESBUILD_OPTIONS.outExtension },
    define: definesFor(name),
    entryPoints: { index: entry },
    outdir,
    logLevel: 'error',
  };
}

/**
 * The output files a cold start loads: the entry and every chunk it imports statically,
 * transitively. Chunks reached only through import() load on first use.
 */
export function loadedAtInit(metafile: Metafile): Set<string> {
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const i of metafile.outputs[file].imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(Object.keys(metafile.outputs).find((file) => file.endsWith(`/${BUNDLE_ENTRY}`) || file === BUNDLE_ENTRY)!);
  return loaded;
}
