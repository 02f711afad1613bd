import { CfnOutput, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CfnStage, HttpApi, HttpMethod, HttpStage, LogGroupLogDestination, type HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { DEFAULT_ROUTE_FUNCTION, KEYED_ROUTES, ROUTES, routeKey, type FunctionName } from '../shared/http/routes';
import { isTokenRoute } from './access';

/**
 * Stage throttling. 100 requests/s steady (burst 200) is far above what one team's tools send
 * and far below what the on-demand table absorbs (4,000 writes/s on a new table), so a runaway
 * client costs at most about $0.36 an hour in HTTP API requests before it is answered 429.
 * update and delete can each touch 10,000 records, so they get their own, tighter limit.
 */
export const STAGE_THROTTLE = { rateLimit: 100, burstLimit: 200 };
export const BULK_THROTTLE = { rateLimit: 5, burstLimit: 10 };
const BULK_FUNCTIONS: ReadonlyArray<string> = ['update', 'delete'];

export interface JwtSettings {
  issuer: string;
  audience: string[];
  /** Prefix of the scopes the identity provider issues, e.g. `recordgate/` for `recordgate/read`. */
  scopePrefix: string;
}

export interface ServiceApiProps {
  functions: ReadonlyMap<FunctionName, NodejsFunction>;
  jwt?: JwtSettings;
  logRemovalPolicy: RemovalPolicy;
}

/**
 * The HTTP API, generated from the route table the local server also uses: one route per route
 * key, each integrated with its function, and DEFAULT_ROUTE_FUNCTION on `$default`: it serves
 * the receiver paths that end in "/" (no route key can) and answers every other unknown path
 * or method with the service's own 404/405 envelope.
 */
export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routes: HttpRoute[];

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const integrations = new Map([...props.functions].map(([name, fn]) => [name, new HttpLambdaIntegration(`${name}Integration`, fn)]));
    const integrationOf = (name: FunctionName) => {
      const integration = integrations.get(name);
      if (!integration) throw new Error(`no function ${name} for the route table`);
      return integration;
    };

    this.api = new HttpApi(this, 'Api', {
      description: 'recordgate record API and OneBot receivers',
      createDefaultStage: false,
      defaultIntegration: integrationOf(DEFAULT_ROUTE_FUNCTION),
    });

    const authorizer = props.jwt
      ? new HttpJwtAuthorizer('Jwt', props.jwt.issuer, { jwtAudience: props.jwt.audience })
      : undefined;
    this.routes = KEYED_ROUTES.flatMap((route) => {
      const guarded = authorizer !== undefined && isTokenRoute(route);
      return this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationOf(route.function),
        authorizer: guarded ? authorizer : undefined,
        authorizationScopes: guarded ? [`${props.jwt!.scopePrefix}${route.scope}`] : undefined,
      });
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.logRemovalPolicy });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: STAGE_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify({
          requestId: '$context.requestId',
          ip: '$context.identity.sourceIp',
          time: '$context.requestTimeEpoch',
          routeKey: '$context.routeKey',
          status: '$context.status',
          latencyMs: '$context.responseLatency',
          responseBytes: '$context.responseLength',
          integrationError: '$context.integrationErrorMessage',
          authorizerError: '$context.authorizer.error',
        })),
      },
    });
    // routeSettings is raw CloudFormation (the L2 has no per-route throttle), hence PascalCase.
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = Object.fromEntries(ROUTES.filter((r) => BULK_FUNCTIONS.includes(r.function)).map((r) => [
      routeKey(r), { ThrottlingRateLimit: BULK_THROTTLE.rateLimit, ThrottlingBurstLimit: BULK_THROTTLE.burstLimit },
    ]));
    // Route settings name routes by key; the stage must come after them.
    this.stage.node.addDependency(...this.routes);

    const url = this.stage.url.replace(/\/$/, '');
    new CfnOutput(Stack.of(this), 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    // Every path the route table gives the receiver: by route key or, ending in "/", through $default.
    const oneBotPaths = ROUTES.filter((r) => r.function === 'onebot').map((r) => r.path);
    new CfnOutput(Stack.of(this), 'OneBotUrls', { value: oneBotPaths.map((p) => `${url}${p}`).join(' '), description: 'OneBot 11 HTTP POST receiver URLs' });
  }
}
