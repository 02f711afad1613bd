import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { FUNCTION_DESCRIPTORS, FUNCTIONS } from '../../../shared/manifest/functions';
import { serviceFunction } from '../../../infra/service-function';
import { lambdaPlatform } from '../../../infra/platform';
import { ServiceSecrets } from '../../../infra/secrets';
import { RecordTable } from '../../../infra/table';
import { openApiDocumentText } from '../../../shared/openapi/text';
import { servedModels } from '../../../catalog/served-models';

// The one test that runs esbuild for real (npm run synth bundles every function): the docs
// function's bundle must carry the swagger-ui files it serves from DOCS_ASSETS_DIR, and the
// openapi function's the document it serves, built at synthesis.
const docs = FUNCTIONS.find((name) => FUNCTION_DESCRIPTORS[name].docsAssets);
const openapi = FUNCTIONS.find((name) => FUNCTION_DESCRIPTORS[name].openApiDocument);

(docs && openapi ? test : test.skip)(
  'the docs and openapi bundles hold their handler and the files they serve, and no source map, built offline',
  () => {
    const app = new App();
    const stack = new Stack(app, 'DocsBundle');
    const { table } = new RecordTable(stack, 'Records', { removalPolicy: RemovalPolicy.DESTROY });
    const removalPolicy = RemovalPolicy.DESTROY;
    const secrets = new ServiceSecrets(stack, 'Secrets', { removalPolicy }).byName;
    const resources = { table, secrets, logRemovalPolicy: removalPolicy, platform: lambdaPlatform(stack), models: servedModels() };
    serviceFunction(stack, docs!, resources);
    serviceFunction(stack, openapi!, resources);
    const { directory } = app.synth();

    const bundles = readdirSync(directory)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => path.join(directory, entry));
    expect(bundles).toHaveLength(2);
    const docsBundle = bundles.find((b) => readdirSync(b).includes('docs-assets'))!;
    const openApiBundle = bundles.find((b) => b !== docsBundle)!;
    // index.mjs and its chunks (infra/esbuild-options.ts), nothing else but what the function serves.
    expect(readdirSync(docsBundle).sort()).toEqual(['chunks', 'docs-assets', 'index.mjs']);
    const assets = readdirSync(path.join(docsBundle, 'docs-assets')).sort();
    expect(assets).toEqual(['favicon-16x16.png', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui.css']);
    expect(readdirSync(openApiBundle).sort()).toEqual(['chunks', 'index.mjs', 'openapi.json']);
    expect(readFileSync(path.join(openApiBundle, 'openapi.json'), 'utf8')).toBe(openApiDocumentText());
  },
  120_000,
); // esbuild through the CDK's process spawns; generous for a loaded CI machine
