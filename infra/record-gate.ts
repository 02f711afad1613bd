import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { type ModelsChoice, servedModels } from '../catalog/served-models';
import { checksTokens } from './access';
import { ServiceAlarms } from './alarms';
import { ServiceApi } from './api';
import { type DeployContext, readContext } from './context';
import { ServiceDashboard } from './dashboard';
import { ChangeFeed } from './feed';
import type { Subscription } from '../shared/feed/subscriptions';
import { ApiFunctions } from './api-functions';
import { HealthCheck } from './health-check';
import { AggregateExpiry } from './aggregate-expiry';
import { expiresAggregates } from '../shared/aggregates/expire';
import { IndexBuild } from './index-build';
import { OneBotQueue } from './onebot-queue';
import { acknowledgeFindings } from './nag';
import { lambdaPlatform } from './platform';
import { ServiceSecrets } from './secrets';
import { RecordTable } from './table';
import { DEPLOYED_VARIABLES } from '../shared/config';

export interface RecordGateProps extends ModelsChoice {
  /** The deploy options; unset, they are read from the app's context (`-c alarms=essential`), as the forked app reads them (infra/context.ts). */
  settings?: DeployContext;
  /**
   * The change feed's subscriptions as the synth checked them (infra/feed.ts subscriptionsAtSynth,
   * given the served models); required when the context names a subscriptionsFile.
   */
  subscriptions?: ReadonlyArray<Subscription>;
}

/**
 * The whole service in one construct: the table, its secrets, every function, the HTTP API,
 * health alarms and a dashboard, serving recordgate's models and a team's own (`models`: a module
 * of defineModel exports or a folder of them; docs/deploying.md, "Adopting recordgate without forking it"). The
 * forked layout's stack (./stack.ts) is this construct with the id `Default`, which CDK leaves out
 * of logical ids: a stack that holds it under that id keeps every logical id of the stack before
 * it, the table's among them.
 */
export class RecordGate extends Construct {
  readonly table: ITableV2;
  readonly api: HttpApi;
  readonly alarmTopic: ITopic;

  constructor(scope: Construct, id: string, props: RecordGateProps = {}) {
    super(scope, id);
    const settings = props.settings ?? readContext(this.node);
    if (settings.subscriptionsFile !== undefined && props.subscriptions === undefined)
      throw new Error(
        'the context names a subscriptionsFile: pass RecordGate its subscriptions, checked against your models: `subscriptions: await subscriptionsAtSynth(file, servedModels({ models }).all)`',
      );
    const subscriptions = props.subscriptions ?? [];
    // Loaded here, in the synth's process: the index definitions, the feed's filter and the OpenAPI document are built from them.
    const models = servedModels(props);
    const removalPolicy = settings.removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const { table } = new RecordTable(this, 'Records', { removalPolicy, existingName: settings.tableName, existingStreamArn: settings.tableStreamArn });
    const secrets = new ServiceSecrets(this, 'Secrets', { removalPolicy });
    const platform = lambdaPlatform(this, settings.secretsLayerArn);
    const resources = { table, secrets: secrets.byName, logRemovalPolicy: removalPolicy, platform, models };
    const apiFunctions = new ApiFunctions(this, 'Functions', resources);
    if (settings.corsOrigins) for (const fn of apiFunctions.byName.values()) fn.addEnvironment(DEPLOYED_VARIABLES.corsOrigins, settings.corsOrigins.join(','));
    if (settings.onebotSelfIds) apiFunctions.byName.get('onebot')?.addEnvironment(DEPLOYED_VARIABLES.onebotSelfIds, settings.onebotSelfIds.join(','));
    if (settings.jwtIssuer) {
      // The functions read the caller's scopes from the verified JWT, less the provider's prefix.
      for (const [name, fn] of apiFunctions.byName) if (checksTokens(name)) fn.addEnvironment(DEPLOYED_VARIABLES.jwtScopePrefix, settings.jwtScopePrefix);
    }
    const receiver = apiFunctions.byName.get('onebot');
    const onebotQueue = receiver ? new OneBotQueue(this, 'OneBotQueue', { ...resources, receiver }) : undefined;
    if (settings.onebotApiRoots)
      for (const fn of [receiver, onebotQueue?.function]) fn?.addEnvironment(DEPLOYED_VARIABLES.onebotApiRoots, settings.onebotApiRoots);
    const feed = new ChangeFeed(this, 'Feed', {
      ...resources,
      subscriptions,
      admin: { status: apiFunctions.byName.get('feed_status')!, replay: apiFunctions.byName.get('feed_replay')! },
    });
    const healthCheck = new HealthCheck(this, 'HealthCheck', resources);
    // After the record functions: the deploy's check runs against the code now serving; after the
    // feed's consumer too, which keeps a new aggregate from every change the backfill reads past.
    const indexBuild = new IndexBuild(this, 'IndexBuild', { ...resources, after: [apiFunctions, feed.consumer] });
    const aggregateExpiry = models.all.some(expiresAggregates) ? new AggregateExpiry(this, 'AggregateExpiry', resources) : undefined;
    const { api } = new ServiceApi(this, 'Http', {
      functions: apiFunctions.byName,
      throttles: settings.throttles,
      logRemovalPolicy: removalPolicy,
      jwt:
        settings.jwtIssuer && settings.jwtAudience
          ? { issuer: settings.jwtIssuer, audience: settings.jwtAudience, scopePrefix: settings.jwtScopePrefix }
          : undefined,
    });

    const functions = new Map<string, typeof healthCheck.function>([
      ...apiFunctions.byName,
      ['health_check', healthCheck.function],
      ['index_build', indexBuild.function],
      ...(onebotQueue ? [['onebot_queue', onebotQueue.function] as const] : []),
      ...(aggregateExpiry ? [['aggregate_expiry', aggregateExpiry.function] as const] : []),
      ['feed', feed.consumer],
      ['feed_delivery', feed.delivery],
    ]);
    const alarms = new ServiceAlarms(this, 'Alarms', {
      level: settings.alarms,
      functions,
      apiFunctions: new Set(apiFunctions.byName.keys()),
      api,
      table,
      healthCheck,
      emails: settings.alarmEmail,
    });
    // Kept events waiting, and changes given up or undelivered, are data not yet where it goes: essential.
    if (settings.alarms !== 'none') onebotQueue?.alarmTo(alarms.topic);
    const feedAlarms = settings.alarms === 'none' ? undefined : feed.alarmTo(alarms.topic);
    new ServiceDashboard(this, 'Dashboard', {
      alarms,
      functions,
      api,
      table,
      healthCheck,
      feed: { deliveries: feed.deliveries, metrics: feed.metrics(), alarms: feedAlarms },
    });

    acknowledgeFindings(Stack.of(this), table);
    this.table = table;
    this.api = api;
    this.alarmTopic = alarms.topic;

    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'ApiTokensSecretArn', { value: secrets.byName.API_TOKENS.secretArn, description: 'Put the bearer tokens here (README)' });
    new CfnOutput(this, 'OneBotSecretArn', { value: secrets.byName.ONEBOT_SECRET.secretArn, description: 'The secret OneBot implementations sign with' });
    new CfnOutput(this, 'SubscriptionsSecretArn', {
      value: secrets.byName.SUBSCRIPTIONS.secretArn,
      description: 'Put the change feed subscriptions here: the file -c subscriptionsFile named (docs/feed.md)',
    });
    new CfnOutput(this, 'FeedBusName', { value: feed.bus.eventBusName, description: 'The EventBridge bus of subscriptions with "bus": "default"' });
    new CfnOutput(this, 'OneBotAccessTokenArn', {
      value: secrets.byName.ONEBOT_ACCESS_TOKEN.secretArn,
      description: "The access token of the bots' OneBot HTTP APIs (ONEBOT_API_ROOTS)",
    });
  }
}
