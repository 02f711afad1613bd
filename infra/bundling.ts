import { FUNCTION_DESCRIPTORS, type FunctionName } from '../shared/http/functions';

/**
 * How every Lambda function is bundled, read by the CDK stack (NodejsFunction) and by the
 * cold-start benchmark, so both measure and ship the same thing. CommonJS with the SDK
 * bundled and `module` entry points preferred loaded fastest on this kind of machine
 * (../shared/research/toolchain.md).
 */
export const NODE_RUNTIME_TARGET = 'node22';

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

/** The OpenAPI document's file in the openapi function's bundle (shared/openapi/operation.ts). */
export const OPENAPI_DOCUMENT_FILE = 'openapi.json';

/** Constants written into a function's code when it is bundled (esbuild's define). */
export function definesFor(name: FunctionName): Record<string, string> {
  return FUNCTION_DESCRIPTORS[name].openApiDocument ? { OPENAPI_DOCUMENT_FILE: JSON.stringify(OPENAPI_DOCUMENT_FILE) } : {};
}

export const handlerEntry = (functionName: string): string => `functions/${functionName}/handler.ts`;
