import type { Server } from 'node:http';
import { startGateway, type Invocation } from '../../../scripts/local/gateway';
import { selectRoute } from '../../../scripts/local/route-selection';
import { accessOf, deployedFunctions } from '../../../infra/access';
import { FUNCTION_DESCRIPTORS } from '../../../shared/manifest/functions';
import { everyModelWithTestModels } from '../test-catalog';
import { readAssembly, type Assembly, type DeployedFunction } from './assembly';
import { startRecordingProxy } from './recorder';
import { FunctionSandboxes } from './sandbox';
import { secretArn, SESSION_TOKEN, startSecretsStandIn, type SecretSource } from './secrets';
import { testModelBundle } from './test-model-bundles';

export interface ArtifactApi {
  url: string;
  assembly: Assembly;
  /** DynamoDB actions each function sent, as the recording proxy saw them. */
  actionsSent: Map<string, Set<string>>;
  sandboxes: Map<string, FunctionSandboxes>;
  /** Invokes a function directly, as an integration or a misconfigured caller could. */
  invoke(fn: string, event: unknown): Promise<Invocation>;
  stop(): Promise<void>;
}

export interface ArtifactOptions {
  /** The DynamoDB engine and the table the template's table reference stands for. */
  engine: string;
  table: string;
  secrets: SecretSource;
  /**
   * Overrides every function's timeout: a number for deliberately short budgets, or, asked at
   * each invocation, the timeout to use given the template's and the function's name.
   */
  timeoutSeconds?: number | ((configured: number, fn: string) => number);
  /** Test-only settings each invocation's environment gets, asked at each invocation. */
  invocationEnvironment?: () => Record<string, string>;
  /** Serves the functions that read the model catalog from their bundles built with the test models (test/support/test-catalog.ts). */
  testModels?: boolean;
  /** Stand-ins for the template's other resources, by the variable that names one (FEED_QUEUE_URL: a queue stand-in's URL). */
  resources?: Readonly<Record<string, string>>;
  /** Stand-ins for AWS services the functions call, as the SDK's AWS_ENDPOINT_URL_<SERVICE> variables. */
  endpoints?: Readonly<Record<string, string>>;
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

/**
 * The functions a stack serving the test models deploys beside the shipped stack's: those deployed
 * only where a model has a ttl and aggregates (aggregate_expiry, for `lease_tally`), which cdk.out
 * lacks. Each runs its bundle built with the test models, with its descriptor's settings and
 * grants, and the environment the template gives index_build (the table, the log settings).
 */
function testModelsOnly(assembly: Assembly): DeployedFunction[] {
  const like = assembly.functions.get('index_build')!;
  const models = everyModelWithTestModels(jest.requireActual('../../../shared/models/every-model')).allModels();
  return deployedFunctions(models)
    .filter((name) => !assembly.functions.has(name))
    .map((name) => ({
      name,
      logicalId: `TestModels${name}`,
      assetDir: testModelBundle(name)!,
      environment: like.environment,
      timeoutSeconds: FUNCTION_DESCRIPTORS[name].lambda.timeoutSeconds,
      memoryMb: FUNCTION_DESCRIPTORS[name].lambda.memoryMb,
      tableActions: new Set(accessOf(name, models).tableActions),
    }));
}

/**
 * The deployed service in miniature: every function of cdk.out in its own sandboxes, behind the
 * HTTP API's route keys from the template, reading its secrets from a Secrets Manager stand-in
 * and its table through a proxy that records what it sends.
 */
export async function startArtifactApi(options: ArtifactOptions): Promise<ArtifactApi> {
  const assembly = readAssembly();
  const secrets = await startSecretsStandIn(options.secrets);
  const actionsSent = new Map<string, Set<string>>();
  const servers: Server[] = [secrets.server];
  const sandboxes = new Map<string, FunctionSandboxes>();
  for (const fn of [...assembly.functions.values(), ...(options.testModels ? testModelsOnly(assembly) : [])]) {
    const sent = new Set<string>();
    actionsSent.set(fn.name, sent);
    const proxy = await startRecordingProxy(options.engine, sent);
    servers.push(proxy.server);
    const assetDir = (options.testModels && testModelBundle(fn.name)) || fn.assetDir;
    sandboxes.set(
      fn.name,
      new FunctionSandboxes(
        { ...fn, assetDir },
        {
          timeoutSeconds: options.timeoutSeconds,
          invocationEnvironment: options.invocationEnvironment,
          resolve: (name, value) => {
            // The Parameters and Secrets extension's port (infra/secrets.ts) is the stand-in's here.
            if (name === 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT') return String(secrets.port);
            if (typeof value === 'string') return value;
            if (name === 'TABLE_NAME') return options.table;
            if (name.endsWith('_SECRET_ARN')) return secretArn(name.replace(/_SECRET_ARN$/, ''));
            const standIn = options.resources?.[name];
            if (standIn !== undefined) return standIn;
            // Other resources (the OneBot queue and bucket) have no stand-in: a call there fails, as
            // it would against an unreachable service.
            return `artifact-unresolved-${name.toLowerCase()}`;
          },
          lambdaEnvironment: {
            AWS_REGION: 'us-east-1',
            AWS_DEFAULT_REGION: 'us-east-1',
            AWS_ACCESS_KEY_ID: 'artifact',
            AWS_SECRET_ACCESS_KEY: 'artifact',
            AWS_SESSION_TOKEN: SESSION_TOKEN,
            AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
            // The engine serves its stream on the same endpoint: a replay's reads are recorded too.
            AWS_ENDPOINT_URL_DYNAMODB_STREAMS: proxy.endpoint,
            AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
            ...options.endpoints,
          },
        },
      ),
    );
  }
  const invoke = (fn: string, event: unknown) => {
    const sandbox = sandboxes.get(fn);
    if (!sandbox) throw new Error(`no function ${fn} in cdk.out`);
    return sandbox.invoke(event);
  };
  const keyed = assembly.routes.filter((r) => r.key !== '$default');
  const fallback = assembly.routes.find((r) => r.key === '$default')?.target;
  const { server, url } = await startGateway({
    port: 0,
    host: '127.0.0.1',
    route: (method, rawPath) => {
      const found = selectRoute(
        keyed.map((r) => ({ key: r.key, target: r })),
        method,
        rawPath,
      );
      if (found) return { key: found.target.key, target: found.target.target, params: found.params };
      if (!fallback) throw new Error('the template has no $default route');
      return { key: '$default', target: fallback, params: {} };
    },
    invoke,
  });
  servers.push(server);
  return {
    url,
    assembly,
    actionsSent,
    sandboxes,
    invoke,
    async stop() {
      for (const sandbox of sandboxes.values()) sandbox.stop();
      server.closeAllConnections();
      await Promise.all(servers.map(close));
    },
  };
}
