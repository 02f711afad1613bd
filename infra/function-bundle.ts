import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { servedModelsSource } from '../catalog/bundle-catalog';
import { isShipped, type ServedModels } from '../catalog/served-models';
import { PACKAGE_ASSETS } from '../shared/docs/assets';
import { FUNCTION_DESCRIPTORS, FUNCTIONS, type FunctionName } from '../shared/manifest/functions';
import { openApiDocumentText } from '../shared/openapi/text';
import { buildOptionsFor, handlerEntry, OPENAPI_DOCUMENT_FILE } from './esbuild-options';

/** The project's root: every function bundles from it. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');

/** The folder of the docs function's bundle that holds the swagger-ui files it serves. */
export const DOCS_ASSETS_DIR = 'docs-assets';

/** Copies exactly the swagger-ui files the docs function serves (shared/docs/assets.ts) into its bundle. */
function copyDocsAssets(outputDir: string): void {
  // Where Node finds it: beside recordgate in a team's node_modules, inside it in the forked layout.
  const source = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const present = Object.keys(PACKAGE_ASSETS);
  const missing = present.filter((file) => !existsSync(path.join(source, file)));
  if (missing.length > 0) throw new Error(`swagger-ui-dist lacks ${missing.join(', ')}: the docs page would break`);
  mkdirSync(path.join(outputDir, DOCS_ASSETS_DIR), { recursive: true });
  for (const file of present) copyFileSync(path.join(source, file), path.join(outputDir, DOCS_ASSETS_DIR, file));
}

type Build = { name: string; outputDir: string; entry: string };

/** Builds with a team's models in place of the shipped catalog (catalog/bundle-catalog.ts), in a process of their own (catalog/bundle-process.ts). */
function buildWithModels(builds: ReadonlyArray<Build>, served: ServedModels): void {
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, path.join(PROJECT_ROOT, 'catalog/bundle-process.ts')], {
    input: JSON.stringify({ builds, source: servedModelsSource(served) }),
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`bundling with the models failed: ${child.stderr || child.error?.message}`);
}

/** Every function's bundle for one set of served models, by the models' catalog source: the folder that holds them. */
const builtForModels = new Map<string, string>();

/**
 * The bundle with a team's models: esbuild's synchronous build, which CDK's bundling calls for,
 * takes no plugin, so a child process builds them, every function at once on the first call (a
 * process per function cost about 1.9 s each on a loaded machine), and each later call copies
 * its function's.
 */
function bundleWithModels(name: FunctionName, outputDir: string, entry: string, served: ServedModels): void {
  if (entry !== handlerEntry(name)) {
    buildWithModels([{ name, outputDir, entry }], served);
    return;
  }
  const key = JSON.stringify(servedModelsSource(served));
  let root = builtForModels.get(key);
  if (!root) {
    const folder = mkdtempSync(path.join(tmpdir(), 'recordgate-bundles-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    buildWithModels(
      FUNCTIONS.map((fn) => ({ name: fn, outputDir: path.join(folder, fn), entry: handlerEntry(fn) })),
      served,
    );
    root = folder;
    builtForModels.set(key, root);
  }
  cpSync(path.join(root, name), outputDir, { recursive: true });
}

/**
 * One function's bundle (infra/esbuild-options.ts) with the files it serves beside it: the docs
 * function's swagger-ui files, and the openapi function's document, built here so that the
 * function only reads a file (shared/openapi/serve.ts). The CDK app bundles every function
 * through this, with the models it serves (unset: the shipped catalog's); the warm-CPU
 * benchmark too, with an entry that also exports the function's document client.
 */
export function bundleFunction(name: FunctionName, outputDir: string, entry = handlerEntry(name), served?: ServedModels): void {
  const descriptor = FUNCTION_DESCRIPTORS[name];
  if (served && !isShipped(served)) bundleWithModels(name, outputDir, entry, served);
  // From the project's root, wherever the app runs: a team's app runs in its own folder.
  else buildSync({ ...buildOptionsFor(name, outputDir, entry), absWorkingDir: PROJECT_ROOT });
  if (descriptor.docsAssets) copyDocsAssets(outputDir);
  if (descriptor.openApiDocument) writeFileSync(path.join(outputDir, OPENAPI_DOCUMENT_FILE), openApiDocumentText(served?.all));
}
