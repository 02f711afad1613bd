import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PACKAGE_ASSETS } from '../shared/docs/assets';
import { definesFor, ESBUILD_OPTIONS, handlerEntry, OPENAPI_DOCUMENT_FILE } from './bundling';
import { openApiDocumentText } from '../shared/openapi/text';
import { accessOf } from './access';
import { FUNCTION_DESCRIPTORS, type FunctionName, type SecretName } from '../shared/http/functions';
import type { LambdaPlatform } from './platform';

const PROJECT_ROOT = path.resolve(__dirname, '..');

const DOCS_ASSETS_DIR = 'docs-assets';

/** Copies exactly the swagger-ui files the docs function serves (shared/docs/assets.ts) into its bundle. */
function docsAssetHooks(): ICommandHooks {
  const source = path.join(PROJECT_ROOT, 'node_modules', 'swagger-ui-dist');
  const present = Object.keys(PACKAGE_ASSETS);
  const missing = present.filter((file) => !existsSync(path.join(source, file)));
  if (missing.length > 0) throw new Error(`swagger-ui-dist lacks ${missing.join(', ')}: the docs page would break`);
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => [
      `mkdir -p "${outputDir}/${DOCS_ASSETS_DIR}"`,
      ...present.map((file) => `cp "${path.join(source, file)}" "${outputDir}/${DOCS_ASSETS_DIR}/${file}"`),
    ],
  };
}

/**
 * Writes the OpenAPI document beside the openapi function's bundle: built here, at synthesis,
 * so the function only reads a file (shared/openapi/operation.ts). Written under
 * node_modules/.cache by rename, so syntheses running at once never copy half a file.
 */
function openApiDocumentHooks(): ICommandHooks {
  const dir = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'recordgate');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, OPENAPI_DOCUMENT_FILE);
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, openApiDocumentText());
  renameSync(partial, file);
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => [`cp "${file}" "${outputDir}/${OPENAPI_DOCUMENT_FILE}"`],
  };
}

function commandHooksFor(name: FunctionName): ICommandHooks | undefined {
  if (FUNCTION_DESCRIPTORS[name].docsAssets) return docsAssetHooks();
  if (FUNCTION_DESCRIPTORS[name].openApiDocument) return openApiDocumentHooks();
  return undefined;
}

/** infra/bundling.ts in NodejsFunction's terms; the SDK is bundled (no external modules). */
function bundlingFor(name: FunctionName): BundlingOptions {
  return {
    minify: ESBUILD_OPTIONS.minify,
    sourceMap: ESBUILD_OPTIONS.sourcemap,
    target: ESBUILD_OPTIONS.target,
    format: ESBUILD_OPTIONS.format === 'cjs' ? OutputFormat.CJS : OutputFormat.ESM,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    externalModules: [...ESBUILD_OPTIONS.external],
    esbuildArgs: { '--legal-comments': ESBUILD_OPTIONS.legalComments },
    define: definesFor(name),
    // The local esbuild bundles offline in seconds; Docker is neither needed nor assumed.
    forceDockerBundling: false,
    commandHooks: commandHooksFor(name),
  };
}

export interface FunctionResources {
  table: ITableV2;
  secrets: Readonly<Record<SecretName, Secret>>;
  logRemovalPolicy: RemovalPolicy;
  platform: LambdaPlatform;
}

/**
 * One Lambda function of the service: `functions/<name>/handler.ts` on Node.js 22, arm64 where the
 * region has the secrets extension for it (infra/platform.ts), with its own log group kept a month, JSON logs, and exactly the
 * table and secret access, memory and timeout of its descriptor (shared/http/functions.ts).
 *
 * Memory (shared/limits.ts): Lambda gives CPU in proportion to memory, and loading a 400 KB bundle and parsing
 * JSON is CPU-bound; at 128 MB cold starts take several times longer, while the price per
 * request of a ~50 ms warm call stays a fraction of the HTTP API's own $1 per million.
 */
export function serviceFunction(scope: Construct, name: FunctionName, resources: FunctionResources): NodejsFunction {
  const node = new Construct(scope, name);
  const logGroup = new LogGroup(node, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: resources.logRemovalPolicy });
  // An own role instead of the AWSLambdaBasicExecutionRole managed policy: logs go to this
  // function's log group only.
  const role = new Role(node, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);

  const descriptor = FUNCTION_DESCRIPTORS[name];
  const access = accessOf(name);
  const environment: Record<string, string> = {};
  if (access.tableActions.length > 0) environment.TABLE_NAME = resources.table.tableName;
  for (const secretName of access.secrets) {
    environment[`${secretName}_SECRET_ARN`] = resources.secrets[secretName].secretArn;
  }
  if (descriptor.docsAssets) environment.DOCS_ASSETS_DIR = `/var/task/${DOCS_ASSETS_DIR}`;

  const fn = new NodejsFunction(node, 'Function', {
    entry: path.join(PROJECT_ROOT, handlerEntry(name)),
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_22_X,
    architecture: resources.platform.architecture,
    memorySize: descriptor.lambda.memoryMb,
    timeout: Duration.seconds(descriptor.lambda.timeoutSeconds),
    loggingFormat: LoggingFormat.JSON,
    logGroup,
    role,
    environment,
    bundling: bundlingFor(name),
    paramsAndSecrets: access.secrets.length > 0 ? resources.platform.secretsLayer : undefined,
    description: `recordgate ${name}`,
  });

  if (access.tableActions.length > 0) resources.table.grant(fn, ...access.tableActions);
  for (const secretName of access.secrets) resources.secrets[secretName].grantRead(fn);
  return fn;
}
