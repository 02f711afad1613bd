import { CfnOutput, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, HttpApi, HttpMethod, HttpStage, LogGroupLogDestination, type HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { tokenScopeOf } from '../shared/auth/scopes';
import { FUNCTION_DESCRIPTORS, type HttpFunctionName } from '../shared/manifest/functions';
import { DEFAULT_ROUTE_FUNCTION, KEYED_ROUTES, ROUTES, routeKey } from '../shared/manifest/routes';
import { API_THROTTLES } from '../shared/limits';

export interface JwtSettings {
  issuer: string;
  audience: string[];
  /** Prefix of the scopes the identity provider issues, e.g. `recordgate/` for `recordgate/read`. */
  scopePrefix: string;
}

/** A throttle as the `throttles` deploy option writes it (infra/context.ts). */
export interface ThrottleSetting {
  rate: number;
  burst: number;
}

export interface ServiceApiProps {
  functions: ReadonlyMap<HttpFunctionName, LambdaFunction>;
  /** Over the defaults of API_THROTTLES: `stage`, and per HTTP function each of its keyed routes. */
  throttles: Partial<Record<'stage' | HttpFunctionName, ThrottleSetting>>;
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
    const integrationOf = (name: HttpFunctionName) => {
      const integration = integrations.get(name);
      if (!integration) throw new Error(`no function ${name} for the route table`);
      return integration;
    };

    this.api = new HttpApi(this, 'Api', {
      description: 'recordgate record API and OneBot receivers',
      createDefaultStage: false,
      defaultIntegration: integrationOf(DEFAULT_ROUTE_FUNCTION),
    });

    const authorizer = props.jwt ? new HttpJwtAuthorizer('Jwt', props.jwt.issuer, { jwtAudience: props.jwt.audience }) : undefined;
    this.routes = KEYED_ROUTES.flatMap((route) => {
      const scope = authorizer ? tokenScopeOf(route.scope) : undefined;
      // A token needs one of a route's scopes (AWS, "Control access to HTTP APIs with JWT
      // authorizers"); delete's function tells write from admin by the model (shared/access/scopes.ts).
      const scopes = scope && ('adminWithoutOwner' in FUNCTION_DESCRIPTORS[route.function] ? [scope, 'admin'] : [scope]);
      return this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationOf(route.function),
        authorizer: scope ? authorizer : undefined,
        authorizationScopes: scopes?.map((s) => `${props.jwt!.scopePrefix}${s}`),
      });
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.logRemovalPolicy });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttles.stage ? { rateLimit: props.throttles.stage.rate, burstLimit: props.throttles.stage.burst } : API_THROTTLES.stage,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            time: '$context.requestTimeEpoch',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            responseBytes: '$context.responseLength',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });
    // routeSettings is raw CloudFormation (the L2 has no per-route throttle), hence PascalCase.
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      KEYED_ROUTES.flatMap((r) => {
        const chosen = props.throttles[r.function];
        const throttle = chosen ? { rateLimit: chosen.rate, burstLimit: chosen.burst } : FUNCTION_DESCRIPTORS[r.function].throttle;
        return throttle ? [[routeKey(r), { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit }]] : [];
      }),
    );
    // Route settings name routes by key; the stage must come after them.
    this.stage.node.addDependency(...this.routes);

    const url = this.stage.url.replace(/\/$/, '');
    new CfnOutput(Stack.of(this), 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    // Every path the route table gives the receiver: by route key or, ending in "/", through $default.
    const oneBotPaths = ROUTES.filter((r) => r.function === 'onebot').map((r) => r.path);
    new CfnOutput(Stack.of(this), 'OneBotUrls', { value: oneBotPaths.map((p) => `${url}${p}`).join(' '), description: 'OneBot 11 HTTP POST receiver URLs' });
  }
}
