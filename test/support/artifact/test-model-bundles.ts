import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { buildOptionsFor } from '../../../infra/esbuild-options';
import { FUNCTION_DESCRIPTORS, type FunctionName } from '../../../shared/manifest/functions';

const ROOT = path.resolve(__dirname, '../../..');
const SHIPPED_CATALOG = path.join(ROOT, 'shared/models/catalog.ts');
const TEST_CATALOG = path.join(__dirname, 'catalog.ts');
/** Where the bundles are, for the suites' processes: set by the artifact project's global setup. */
const BUNDLES_VARIABLE = 'RG_TEST_MODEL_BUNDLES';

/**
 * Resolves every import of the shipped catalog to the test catalog, but the test catalog's own,
 * as a team adding its own models would point the build at its catalog; notes that it did.
 */
function testCatalog(found: { catalog: boolean }): Plugin {
  return {
    name: 'test-catalog',
    setup(plugin) {
      plugin.onResolve({ filter: /\/catalog$/ }, async ({ path: specifier, importer, resolveDir, kind, pluginData }) => {
        if (importer === TEST_CATALOG || pluginData === SHIPPED_CATALOG) return undefined;
        const resolved = await plugin.resolve(specifier, { importer, resolveDir, kind, pluginData: SHIPPED_CATALOG });
        if (resolved.path !== SHIPPED_CATALOG) return undefined;
        found.catalog = true;
        return { path: TEST_CATALOG };
      });
    },
  };
}

/**
 * Bundles, once per run, every function that reads the model catalog as the CDK app bundles it
 * (buildOptionsFor, infra/esbuild-options.ts), but with the test models added
 * (test/support/test-catalog.ts), into a folder the suites' harnesses find (testModelBundle).
 * A function that reads no catalog is served from cdk.out as it is.
 */
export async function buildTestModelBundles(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'rg-test-model-bundles-'));
  const readers = await catalogReaders();
  await Promise.all(
    readers.map(async (name) => {
      const found = { catalog: false };
      await build({ ...buildOptionsFor(name, path.join(root, name)), absWorkingDir: ROOT, plugins: [testCatalog(found)] });
      if (!found.catalog) throw new Error(`${name}'s bundle never imported the catalog`);
    }),
  );
  process.env[BUNDLES_VARIABLE] = root;
  return root;
}

/**
 * The functions whose code imports the catalog, found by bundling only the project's own files
 * (a tenth of a full build, which parses and minifies the SDK); each function's bundle is built
 * only where the test models can reach it.
 */
async function catalogReaders(): Promise<FunctionName[]> {
  const names = Object.keys(FUNCTION_DESCRIPTORS) as FunctionName[];
  const reads = await Promise.all(
    names.map(async (name) => {
      const found = { catalog: false };
      await build({ ...buildOptionsFor(name, ROOT), absWorkingDir: ROOT, packages: 'external', minify: false, write: false, plugins: [testCatalog(found)] });
      return found.catalog;
    }),
  );
  // A function whose bundle carries files built beside it (infra/function-bundle.ts: the docs page,
  // the OpenAPI document) is public: it reaches the catalog only through the scope check of a
  // caller's body (shared/access/scopes.ts), which a public route never runs, and its document is
  // built at synth from every model. It is served from cdk.out as it is.
  return names.filter((name, i) => reads[i] && !FUNCTION_DESCRIPTORS[name].docsAssets && !FUNCTION_DESCRIPTORS[name].openApiDocument);
}

/** The folder of `fn`'s bundle built with the test models, or undefined when it reads no catalog. */
export function testModelBundle(fn: string): string | undefined {
  const root = process.env[BUNDLES_VARIABLE];
  if (!root)
    throw new Error(`${BUNDLES_VARIABLE} is unset: the artifact project's global setup (test/support/engine-artifact.ts) builds the test models' bundles`);
  const dir = path.join(root, fn);
  return existsSync(dir) ? dir : undefined;
}
