import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { FUNCTION_DESCRIPTORS, FUNCTIONS } from '../../../shared/http/functions';
import { serviceFunction } from '../../../infra/function';
import { lambdaPlatform } from '../../../infra/platform';
import { ServiceSecrets } from '../../../infra/secrets';
import { RecordTable } from '../../../infra/table';

// The one test that runs esbuild for real (npm run synth bundles every function): the docs
// function's bundle must carry the swagger-ui files it serves from DOCS_ASSETS_DIR.
const docs = FUNCTIONS.find((name) => FUNCTION_DESCRIPTORS[name].docsAssets);

(docs ? test : test.skip)(
  'the docs bundle holds its handler and swagger-ui assets, and no source map, built offline',
  () => {
    const app = new App();
    const stack = new Stack(app, 'DocsBundle');
    const { table } = new RecordTable(stack, 'Records', { removalPolicy: RemovalPolicy.DESTROY });
    const removalPolicy = RemovalPolicy.DESTROY;
    const secrets = new ServiceSecrets(stack, 'Secrets', { removalPolicy }).byName;
    serviceFunction(stack, docs!, { table, secrets, logRemovalPolicy: removalPolicy, platform: lambdaPlatform(stack) });
    const { directory } = app.synth();

    const bundles = readdirSync(directory)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => path.join(directory, entry));
    expect(bundles).toHaveLength(1);
    expect(readdirSync(bundles[0]).sort()).toEqual(['docs-assets', 'index.js']);
    const assets = readdirSync(path.join(bundles[0], 'docs-assets')).sort();
    expect(assets).toEqual(['favicon-16x16.png', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui.css']);
  },
  120_000,
); // esbuild through the CDK's process spawns; generous for a loaded CI machine
