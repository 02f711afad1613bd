import { AssetHashType, Duration, type ILocalBundling, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Code, Function as LambdaFunction, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { LAMBDA_NODE_MAJOR } from './esbuild-options';
import { bundleFunction, DOCS_ASSETS_DIR, PROJECT_ROOT } from './function-bundle';
import { accessOf } from './access';
import { DEPLOYED_VARIABLES, type SecretName, secretArnVariable } from '../shared/config';
import { FUNCTION_DESCRIPTORS, type FunctionName } from '../shared/manifest/functions';
import type { LambdaPlatform } from './platform';
import type { ServedModels } from '../catalog/served-models';

/** CDK's own runtime for the major the bundles are built for; one CDK does not know yet stops the synth. */
const RUNTIME: Runtime = (() => {
  const known = Runtime.ALL.find((runtime) => runtime.name === `nodejs${LAMBDA_NODE_MAJOR}.x` && !runtime.isVariable);
  if (!known) throw new Error(`aws-cdk-lib has no Lambda runtime nodejs${LAMBDA_NODE_MAJOR}.x`);
  return known;
})();

/**
 * Bundles a function on this machine with the files it serves beside it (infra/function-bundle.ts), the
 * openapi function's document built here at synthesis. NodejsFunction cannot be used:
 * it always passes esbuild --outfile, which esbuild refuses with code splitting
 * (https://github.com/evanw/esbuild/issues/1666). Docker is neither needed nor assumed.
 */
class LocalBundling implements ILocalBundling {
  /** The served models' names: a field too, so that two apps serving other models never share a cached bundle. */
  readonly models: string;
  // Not in the JSON: the models' schemas are no part of the cache key, their names are.
  readonly #served: ServedModels;

  // Fields, not only a closure: CDK keys its bundle cache on the bundling options' JSON, and
  // every function bundles from the same folder.
  constructor(
    readonly functionName: FunctionName,
    served: ServedModels,
  ) {
    this.#served = served;
    this.models = served.all.map((m) => m.name).join(',');
  }

  tryBundle(outputDir: string): boolean {
    bundleFunction(this.functionName, outputDir, undefined, this.#served);
    return true;
  }
}

function functionCode(name: FunctionName, models: ServedModels): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    // The image is only CDK's fallback when local bundling declines, which it never does; it is
    // the runtime's own build image so that it cannot name another Node major.
    bundling: { local: new LocalBundling(name, models), image: RUNTIME.bundlingImage },
  });
}

export interface FunctionResources {
  table: ITableV2;
  secrets: Readonly<Record<SecretName, Secret>>;
  logRemovalPolicy: RemovalPolicy;
  platform: LambdaPlatform;
  /** The models the functions serve, bundled in place of the shipped catalog when they differ from it (catalog/). */
  models: ServedModels;
}

/**
 * One Lambda function of the service: `functions/<name>/handler.ts` on Lambda's Node.js runtime (infra/esbuild-options.ts), arm64 where the
 * region has the secrets extension for it (infra/platform.ts), with its own log group kept a month, JSON logs, and exactly the
 * table and secret access, memory and timeout of its descriptor (shared/manifest/functions.ts).
 *
 * Memory (shared/limits.ts): Lambda gives CPU in proportion to memory, and loading a 400 KB bundle and parsing
 * JSON is CPU-bound; at 128 MB cold starts take several times longer, while the price per
 * request of a ~50 ms warm call stays a fraction of the HTTP API's own $1 per million.
 */
export function serviceFunction(scope: Construct, name: FunctionName, resources: FunctionResources): LambdaFunction {
  const node = new Construct(scope, name);
  const logGroup = new LogGroup(node, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: resources.logRemovalPolicy });
  // An own role instead of the AWSLambdaBasicExecutionRole managed policy: logs go to this
  // function's log group only.
  const role = new Role(node, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);

  const descriptor = FUNCTION_DESCRIPTORS[name];
  const access = accessOf(name, resources.models.all);
  const environment: Record<string, string> = {};
  if (access.tableActions.length > 0) environment[DEPLOYED_VARIABLES.tableName] = resources.table.tableName;
  for (const secretName of access.secrets) {
    environment[secretArnVariable(secretName)] = resources.secrets[secretName].secretArn;
  }
  if (descriptor.docsAssets) environment[DEPLOYED_VARIABLES.docsAssetsDir] = `/var/task/${DOCS_ASSETS_DIR}`;

  const fn = new LambdaFunction(node, 'Function', {
    code: functionCode(name, resources.models),
    handler: 'index.handler',
    runtime: RUNTIME,
    architecture: resources.platform.architecture,
    memorySize: descriptor.lambda.memoryMb,
    timeout: Duration.seconds(descriptor.lambda.timeoutSeconds),
    loggingFormat: LoggingFormat.JSON,
    logGroup,
    role,
    environment,
    paramsAndSecrets: access.secrets.length > 0 ? resources.platform.secretsLayer : undefined,
    description: `recordgate ${name}`,
  });

  if (access.tableActions.length > 0) resources.table.grant(fn, ...access.tableActions);
  if (descriptor.readsStream) resources.table.grantStreamRead(fn);
  for (const secretName of access.secrets) resources.secrets[secretName].grantRead(fn);
  return fn;
}
