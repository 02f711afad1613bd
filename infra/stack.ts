import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { checksTokens } from './access';
import { ServiceAlarms } from './alarms';
import { ServiceApi } from './api';
import type { DeployContext } from './context';
import { ServiceDashboard } from './dashboard';
import { ChangeFeed } from './feed';
import type { Subscription } from '../shared/feed/subscriptions';
import { ApiFunctions } from './api-functions';
import { HealthCheck } from './health-check';
import { IndexBuild } from './index-build';
import { OneBotQueue } from './onebot-queue';
import { acknowledgeFindings } from './nag';
import { lambdaPlatform } from './platform';
import { ServiceSecrets } from './secrets';
import { RecordTable } from './table';
import { DEPLOYED_VARIABLES } from '../shared/config';

export interface RecordgateStackProps extends StackProps {
  settings: DeployContext;
  /** The change feed's subscriptions as the synth checked them (infra/feed.ts subscriptionsAtSynth). */
  subscriptions: ReadonlyArray<Subscription>;
}

/** The whole service: the table, its secrets, every function, the HTTP API, health alarms and a dashboard. */
export class RecordgateStack extends Stack {
  constructor(scope: Construct, id: string, props: RecordgateStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const removalPolicy = settings.removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const { table } = new RecordTable(this, 'Records', { removalPolicy, existingName: settings.tableName, existingStreamArn: settings.tableStreamArn });
    const secrets = new ServiceSecrets(this, 'Secrets', { removalPolicy });
    const platform = lambdaPlatform(this, settings.secretsLayerArn);
    const resources = { table, secrets: secrets.byName, logRemovalPolicy: removalPolicy, platform };
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
      subscriptions: props.subscriptions,
      admin: { status: apiFunctions.byName.get('feed_status')!, replay: apiFunctions.byName.get('feed_replay')! },
    });
    const healthCheck = new HealthCheck(this, 'HealthCheck', resources);
    // After the record functions: the deploy's check runs against the code now serving; after the
    // feed's consumer too, which keeps a new aggregate from every change the backfill reads past.
    const indexBuild = new IndexBuild(this, 'IndexBuild', { ...resources, after: [apiFunctions, feed.consumer] });
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

    acknowledgeFindings(this, table);

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
