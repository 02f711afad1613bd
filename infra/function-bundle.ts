import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { PACKAGE_ASSETS } from '../shared/docs/assets';
import { FUNCTION_DESCRIPTORS, type FunctionName } from '../shared/manifest/functions';
import { openApiDocumentText } from '../shared/openapi/text';
import { buildOptionsFor, handlerEntry, OPENAPI_DOCUMENT_FILE } from './esbuild-options';

/** The project's root: every function bundles from it. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');

/** The folder of the docs function's bundle that holds the swagger-ui files it serves. */
export const DOCS_ASSETS_DIR = 'docs-assets';

/** Copies exactly the swagger-ui files the docs function serves (shared/docs/assets.ts) into its bundle. */
function copyDocsAssets(outputDir: string): void {
  const source = path.join(PROJECT_ROOT, 'node_modules', 'swagger-ui-dist');
  const present = Object.keys(PACKAGE_ASSETS);
  const missing = present.filter((file) => !existsSync(path.join(source, file)));
  if (missing.length > 0) throw new Error(`swagger-ui-dist lacks ${missing.join(', ')}: the docs page would break`);
  mkdirSync(path.join(outputDir, DOCS_ASSETS_DIR), { recursive: true });
  for (const file of present) copyFileSync(path.join(source, file), path.join(outputDir, DOCS_ASSETS_DIR, file));
}

/**
 * One function's bundle (infra/esbuild-options.ts) with the files it serves beside it: the docs
 * function's swagger-ui files, and the openapi function's document, built here so that the
 * function only reads a file (shared/openapi/serve.ts). The CDK app bundles every function
 * through this; the warm-CPU benchmark too, with an entry that also exports the function's
 * document client.
 */
export function bundleFunction(name: FunctionName, outputDir: string, entry = handlerEntry(name)): void {
  const descriptor = FUNCTION_DESCRIPTORS[name];
  buildSync(buildOptionsFor(name, outputDir, entry));
  if (descriptor.docsAssets) copyDocsAssets(outputDir);
  if (descriptor.openApiDocument) writeFileSync(path.join(outputDir, OPENAPI_DOCUMENT_FILE), openApiDocumentText());
}
