import { Match } from 'aws-cdk-lib/assertions';
import { tokenScopeOf } from '../../../shared/auth/scopes';
import { FUNCTION_DESCRIPTORS, HTTP_FUNCTIONS } from '../../../shared/manifest/functions';
import { DEFAULT_ROUTES, KEYED_ROUTES, ROUTES, routeKey } from '../../../shared/manifest/routes';
import { HEALTH_METRICS } from '../../../shared/health/metrics';
import { API_THROTTLES, ONEBOT_QUEUE } from '../../../shared/limits';
import { backoffSeconds, maxReceiveCount, outageCoveredSeconds, secondsBeforeReceive } from '../../../shared/onebot/keep/backoff';
import { createTableInput, TTL_ATTRIBUTE } from '../../../shared/store/table';
import { accessOf, deployedFunctions } from '../../../infra/access';
import { LAMBDA_NODE_MAJOR } from '../../../infra/esbuild-options';
import { THRESHOLDS } from '../../../infra/alarms';
import { QUEUE_THRESHOLDS } from '../../../infra/onebot-queue';
import { readContext } from '../../../infra/context';
import { SYNTH_VARIANTS, synthesized, templateIndex } from '../../support/synth';

// The stack as `cdk deploy` builds it with no option, and with every option at once.
// Its functions: the shipped models have no ttl with aggregates, so no aggregate_expiry (record-gate.test.ts).
const FUNCTIONS = deployedFunctions();
const { template } = synthesized('default');
const index = templateIndex(template);
const options = synthesized('options').template;
const optionsIndex = templateIndex(options);
const optionsContext = SYNTH_VARIANTS.options.context;
/** What synth says of a context, read as the app reads it (cheaper than a synthesis that stops there). */
const refused = (context: Record<string, unknown>) => () => readContext({ tryGetContext: (key: string) => context[key] } as Parameters<typeof readContext>[0]);
const tokenRoutes = ROUTES.filter((r) => tokenScopeOf(r.scope) !== undefined);
const queues = () => index.ofType('AWS::SQS::Queue').map(([id, q]) => ({ id, ...q.Properties }));
/** The OneBot queue and its dead-letter queue (the change feed's are test/build/infra/feed.test.ts's). */
const sourceQueue = () => queues().find((q) => q.id.startsWith('OneBotQueue') && q.RedrivePolicy)!;
const deadLetterQueue = () => queues().find((q) => q.id === sourceQueue().RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0])!;

describe('table', () => {
  test('is built from the same description as the local table', () => {
    const input = createTableInput('x');
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: input.KeySchema,
      AttributeDefinitions: Match.arrayWith(input.AttributeDefinitions!.map((d) => Match.objectEquals({ ...d }))),
      GlobalSecondaryIndexes: input.GlobalSecondaryIndexes,
      BillingMode: 'PAY_PER_REQUEST',
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
      LocalSecondaryIndexes: Match.absent(),
    });
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      AttributeDefinitions: Match.arrayEquals(input.AttributeDefinitions!.map(() => Match.anyValue())),
    });
  });

  test('is retained when the stack goes, unless the dev switch says destroy', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(optionsContext.removal).toBe('destroy');
    options.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] }),
    });
  });
});

describe('functions', () => {
  test('one per function of shared/manifest/functions.ts, the health check and the OneBot queue consumer among them', () => {
    expect(index.ofType('AWS::Lambda::Function')).toHaveLength(FUNCTIONS.length);
  });

  test.each(FUNCTIONS)(`%s runs Node.js ${LAMBDA_NODE_MAJOR} on arm64 with its memory and timeout, and JSON logs kept a month`, (name) => {
    const props = index.functionProps(name);
    const { memoryMb, timeoutSeconds } = FUNCTION_DESCRIPTORS[name].lambda;
    expect(props).toMatchObject({
      Runtime: `nodejs${LAMBDA_NODE_MAJOR}.x`,
      Architectures: ['arm64'],
      MemorySize: memoryMb,
      Timeout: timeoutSeconds,
      Handler: 'index.handler',
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: expect.any(String) } },
    });
    expect(index.resources[props.LoggingConfig.LogGroup.Ref].Properties.RetentionInDays).toBe(30);
    // Its role writes its own log group only, and never through the broad managed policy.
    const logStatements = index.statementsOf(name).filter((s) => s.actions.some((a) => a.startsWith('logs:')));
    expect(logStatements).toEqual([
      { actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [{ 'Fn::GetAtt': [props.LoggingConfig.LogGroup.Ref, 'Arn'] }] },
    ]);
  });

  test('no role uses a managed policy', () => {
    for (const [, role] of index.ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('least privilege', () => {
  /** The stream's read actions (functions/feed's event source mapping) are not table actions: see the test after. */
  const STREAM_ACTIONS = /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/;
  const tableActions = (name: string) => [...index.actionsOf(name)].filter((a) => a.startsWith('dynamodb:') && !STREAM_ACTIONS.test(a)).sort();

  // Exactly what its descriptor lists; the artifact tests check that each bundle sends no other action.
  test.each(FUNCTIONS)('%s may send exactly its own actions to the table and its indexes, and only then knows the table', (name) => {
    const expected = [...accessOf(name).tableActions].sort();
    expect(tableActions(name)).toEqual(expected);
    const env = index.functionProps(name).Environment?.Variables ?? {};
    if (expected.length === 0) expect(env.TABLE_NAME).toBeUndefined();
    else expect(env.TABLE_NAME).toEqual({ Ref: expect.any(String) });
  });

  // A TransactWriteItems is authorised per action it holds: only the transaction function may check an item without writing it.
  test('no function may Scan or batch, only the change feed and its replay read the stream; only the transaction function may ConditionCheckItem', () => {
    for (const name of FUNCTIONS) expect(tableActions(name).filter((a) => /Scan|Batch|Transact|Stream|Shard/.test(a))).toEqual([]);
    // The consumer, by its event source mapping; the replay route, for `since` (docs/feed.md).
    expect(FUNCTIONS.filter((name) => [...index.actionsOf(name)].some((a) => STREAM_ACTIONS.test(a)))).toEqual(['feed', 'feed_replay']);
    expect(FUNCTIONS.filter((name) => tableActions(name).includes('dynamodb:ConditionCheckItem'))).toEqual(['transaction']);
  });

  const secretOf = (name: string) => index.functionProps(name).Environment?.Variables ?? {};
  test('only the functions behind bearer tokens read API_TOKENS, and health, which shows the bots to a read token', () => {
    const readers = FUNCTIONS.filter((name) => secretOf(name).API_TOKENS_SECRET_ARN);
    expect(readers.sort()).toEqual([...new Set([...tokenRoutes.map((r) => r.function), 'health'])].sort());
  });

  test.each(FUNCTIONS)('%s is told of exactly the secrets it reads', (name) => {
    const named = Object.keys(secretOf(name))
      .filter((key) => key.endsWith('_SECRET_ARN'))
      .map((key) => key.replace(/_SECRET_ARN$/, ''));
    expect(named).toEqual(accessOf(name).secrets);
  });

  test('a function may read exactly the secrets named in its environment', () => {
    for (const name of FUNCTIONS) {
      const named = Object.entries(secretOf(name))
        .filter(([key]) => key.endsWith('_SECRET_ARN'))
        .map(([, value]) => value);
      const granted = index
        .statementsOf(name)
        .filter((s) => s.actions.includes('secretsmanager:GetSecretValue'))
        .flatMap((s) => s.resources);
      expect(granted).toEqual(named);
    }
  });
});

describe('HTTP API', () => {
  const routes = index.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
  const functionOfTarget = (target: { 'Fn::Join': [string, [string, { Ref: string }]] }) => {
    const integration = index.resources[target['Fn::Join'][1][1].Ref].Properties;
    const fnId = integration.IntegrationUri['Fn::GetAtt'][0];
    return String(index.resources[fnId].Properties.Description).replace('recordgate ', '');
  };

  // API Gateway route keys cannot end in "/" and `/a/` does not reach `/a` (docs/decisions.md).
  test('has a route key for every route the route table can key, plus $default, and none ends in "/"', () => {
    expect(routes.map((r) => r.RouteKey).sort()).toEqual([...KEYED_ROUTES.map(routeKey), '$default'].sort());
    for (const r of routes) expect(r.RouteKey).not.toMatch(/[^ ]\/$/);
  });

  test.each(KEYED_ROUTES.map((r) => [routeKey(r), r.function]))('%s is answered by %s', (key, fn) => {
    const route = routes.find((r) => r.RouteKey === key)!;
    expect(functionOfTarget(route.Target)).toBe(fn);
    expect(route.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  test('$default reaches the receiver, which serves the paths ending in "/" and answers the rest 404/405', () => {
    expect(DEFAULT_ROUTES.map((r) => r.path).sort()).toEqual(['/onebot/v11/', '/onebot/v11/http/']);
    expect(functionOfTarget(routes.find((r) => r.RouteKey === '$default')!.Target)).toBe('onebot');
  });

  test('the OneBotUrls output lists every receiver path of the route table', () => {
    const value = JSON.stringify(Object.values(template.findOutputs('OneBotUrls'))[0].Value);
    for (const path of ['/', '/onebot/v11/', '/onebot/v11/http', '/onebot/v11/http/']) expect(value).toContain(`${path} `.trimEnd());
  });

  test('the stage throttles, tighter for bulk update and delete, and logs every request', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: API_THROTTLES.stage.rateLimit, ThrottlingBurstLimit: API_THROTTLES.stage.burstLimit },
      RouteSettings: {
        'POST /api/db/{model_name}/update': { ThrottlingRateLimit: API_THROTTLES.bulk.rateLimit, ThrottlingBurstLimit: API_THROTTLES.bulk.burstLimit },
        'POST /api/db/{model_name}/delete': { ThrottlingRateLimit: API_THROTTLES.bulk.rateLimit, ThrottlingBurstLimit: API_THROTTLES.bulk.burstLimit },
      },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  test("the throttles option replaces the stage throttle and each named function's, on every route key of that function", () => {
    const stage = optionsIndex.ofType('AWS::ApiGatewayV2::Stage')[0][1].Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 });
    const createRoutes = KEYED_ROUTES.filter((r) => r.function === 'create').map(routeKey);
    expect(createRoutes.length).toBeGreaterThan(0);
    for (const key of createRoutes) expect(stage.RouteSettings[key]).toEqual({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 });
    expect(stage.RouteSettings['POST /api/db/{model_name}/update']).toEqual({ ThrottlingRateLimit: 2, ThrottlingBurstLimit: 3 });
    // A function the option does not name keeps its default.
    expect(stage.RouteSettings['POST /api/db/{model_name}/delete']).toEqual({
      ThrottlingRateLimit: API_THROTTLES.bulk.rateLimit,
      ThrottlingBurstLimit: API_THROTTLES.bulk.burstLimit,
    });
  });

  test('a throttle for no function, or not a rate and a whole burst, stops the synth', () => {
    expect(refused({ throttles: '{"nosuch": {"rate": 1, "burst": 1}}' })).toThrow(/throttles/);
    expect(refused({ throttles: '{"create": {"rate": -1, "burst": 1}}' })).toThrow(/throttles/);
    expect(refused({ throttles: '{"create": {"rate": 1, "burst": 1.5}}' })).toThrow(/throttles/);
    expect(refused({ throttles: '{"create": {"rate": 1}}' })).toThrow(/throttles/);
    expect(refused({ throttles: 'create=1' })).toThrow(/not valid JSON/);
    expect(refused({ throttles: { create: { rate: 1, burst: 2 } } })).not.toThrow();
  });

  test('a JWT authorizer, when asked for, guards exactly the bearer-token routes with their scope', () => {
    options.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: 'https://id.example.com/', Audience: ['recordgate'] },
    });
    const jwtRoutes = optionsIndex.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    for (const route of KEYED_ROUTES) {
      const deployed = jwtRoutes.find((r) => r.RouteKey === routeKey(route))!;
      if (tokenRoutes.includes(route))
        expect(deployed).toMatchObject({
          AuthorizationType: 'JWT',
          // delete: write deletes its own records where an owner rule says which, admin anyone's.
          AuthorizationScopes: [route.scope, ...(route.function === 'delete' ? ['admin'] : [])].map((s) => `${optionsContext.jwtScopePrefix}${s}`),
        });
      else expect(deployed.AuthorizationType ?? 'NONE').toBe('NONE');
    }
  });

  test('refuses half a JWT setting', () => {
    expect(refused({ jwtIssuer: 'https://id.example.com/' })).toThrow(/jwtIssuer and jwtAudience go together/);
  });
});

describe('OneBot queue', () => {
  const receiver = () => index.functionProps('onebot');
  test('the receiver may send to the queue and put bodies in the bucket; it knows where both are', () => {
    expect(receiver().Environment.Variables).toMatchObject({ ONEBOT_QUEUE_URL: { Ref: expect.any(String) }, ONEBOT_BUCKET: { Ref: expect.any(String) } });
    expect([...index.actionsOf('onebot')]).toEqual(expect.arrayContaining(['sqs:SendMessage', 's3:PutObject', 's3:GetObject']));
  });

  test('the queue feeds onebot_queue, which reports failures one by one, at most a few invocations at once', () => {
    expect(queues().filter((q) => q.id.startsWith('OneBotQueue'))).toHaveLength(2);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: index.functionId('onebot_queue') },
      EventSourceArn: { 'Fn::GetAtt': [sourceQueue().id, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: ONEBOT_QUEUE.maxConcurrency },
    });
    // Six times the function timeout, as AWS advises for an SQS event source.
    expect(sourceQueue().VisibilityTimeout).toBeGreaterThanOrEqual(6 * FUNCTION_DESCRIPTORS.onebot_queue.lambda.timeoutSeconds);
    expect(index.functionProps('onebot_queue').Environment.Variables).toMatchObject({
      TABLE_NAME: { Ref: expect.any(String) },
      ONEBOT_BUCKET: { Ref: expect.any(String) },
      ONEBOT_QUEUE_URL: { Ref: sourceQueue().id },
    });
  });

  test('the consumer may hide a delivery for its backoff: sqs:ChangeMessageVisibility on the queue', () => {
    const queueArn = { 'Fn::GetAtt': [sourceQueue().id, 'Arn'] };
    const grants = index.statementsOf('onebot_queue').filter((s) => s.resources.some((r) => JSON.stringify(r) === JSON.stringify(queueArn)));
    expect(grants.flatMap((s) => s.actions)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
  });

  test('a delivery failing every receive is dead-lettered before its retention ends, and the dead-letter queue keeps it longer', () => {
    const retention = sourceQueue().MessageRetentionPeriod;
    const { maxReceiveCount: count } = sourceQueue().RedrivePolicy;
    expect(count).toBe(maxReceiveCount());
    // SQS moves it on the receive after the last: when every backoff has passed.
    expect(secondsBeforeReceive(count + 1)).toBeLessThan(retention);
    // One receive more would not fit: the backoffs use the retention, not a few minutes of it.
    expect(secondsBeforeReceive(count + 2)).toBeGreaterThan(retention - ONEBOT_QUEUE.spareSeconds);
    // Each backoff is one ChangeMessageVisibility, which SQS caps at 12 hours.
    for (let k = 1; k <= count; k++) expect(backoffSeconds(k)).toBeLessThanOrEqual(43_200);
    // A dead letter keeps its first send time (standard queue): days left there to redrive it.
    expect(deadLetterQueue().MessageRetentionPeriod - secondsBeforeReceive(count + 1)).toBeGreaterThanOrEqual(retention);
    expect(deadLetterQueue().MessageRetentionPeriod).toBeLessThanOrEqual(14 * 86_400);
    expect(outageCoveredSeconds()).toBeGreaterThan(6 * 86_400);
  });

  test('ONEBOT_API_ROOTS comes from the onebotApiRoots context, checked at synth', () => {
    const roots = optionsContext.onebotApiRoots;
    for (const name of ['onebot', 'onebot_queue']) expect(optionsIndex.functionProps(name).Environment.Variables.ONEBOT_API_ROOTS).toBe(roots);
    expect(refused({ onebotApiRoots: '{"bot":"ftp://x"}' })).toThrow(/onebotApiRoots/);
  });
});

describe('index build', () => {
  test('runs every five minutes, and at a deploy that changes a model, after the record functions are in place', () => {
    const arn = { 'Fn::GetAtt': [index.functionId('index_build'), 'Arn'] };
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: arn, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    const [[, check]] = index.ofType('Custom::ModelLayouts');
    expect(check.Properties.ServiceToken).toEqual(arn);
    expect(JSON.parse(check.Properties.Models)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'reaction', shards: 1 })]));
    expect((check as { DependsOn?: string[] }).DependsOn).toEqual(expect.arrayContaining([index.functionId('list'), index.functionId('create')]));
  });
});

describe('secrets', () => {
  test('no secret value is in the template; the token table and the subscriptions start empty', () => {
    const secrets = index.ofType('AWS::SecretsManager::Secret').map(([, s]) => s.Properties);
    expect(secrets).toHaveLength(5);
    expect(secrets.filter((s) => s.SecretString !== undefined).map((s) => s.SecretString)).toEqual(['{}', '[]']);
    expect(secrets.filter((s) => s.GenerateSecretString)).toHaveLength(3);
  });
});

describe('alarms', () => {
  const alarms = index.ofType('AWS::CloudWatch::Alarm').map(([id, a]) => ({ id, ...a.Properties }));
  const named = (suffix: string) => {
    const found = alarms.find((a) => a.AlarmName === `Recordgate-${suffix}`);
    if (!found) throw new Error(`no alarm ${suffix}`);
    return found;
  };

  test('the health check runs every minute and a missing datapoint counts as unhealthy', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [index.functionId('health_check'), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    expect(named('health')).toMatchObject({
      Namespace: HEALTH_METRICS.namespace,
      MetricName: HEALTH_METRICS.healthy,
      Statistic: 'Minimum',
      Period: 60,
      Threshold: THRESHOLDS.health.below,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: THRESHOLDS.health.of,
      DatapointsToAlarm: THRESHOLDS.health.datapoints,
      TreatMissingData: 'breaching',
      Dimensions: [{ Name: HEALTH_METRICS.dimension, Value: { Ref: expect.any(String) } }],
    });
  });

  test('API 5xx rate and p99 latency', () => {
    const fiveXx = named('api-5xx');
    const { above, of, datapoints } = THRESHOLDS.api5xxPercent;
    expect(fiveXx).toMatchObject({ Threshold: above, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: of, DatapointsToAlarm: datapoints });
    expect(
      fiveXx.Metrics.map(
        (m: { Expression?: string; MetricStat?: { Metric: { MetricName: string } } }) => m.Expression ?? m.MetricStat!.Metric.MetricName,
      ).sort(),
    ).toEqual(['5xx', 'Count', 'IF(requests > 0, 100 * errors / requests, 0)']);
    expect(named('api-p99-latency')).toMatchObject({
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: THRESHOLDS.apiP99Ms.above,
      EvaluationPeriods: THRESHOLDS.apiP99Ms.of,
    });
  });

  test('DynamoDB throttles (table and every index) and system errors', () => {
    const throttles = named('table-throttles');
    expect(throttles).toMatchObject({ Threshold: THRESHOLDS.tableThrottles.atLeast, EvaluationPeriods: THRESHOLDS.tableThrottles.of });
    expect(throttles.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat)).toHaveLength(
      2 * (1 + createTableInput('x').GlobalSecondaryIndexes!.length),
    );
    const systemErrors = named('table-system-errors');
    expect(systemErrors).toMatchObject({ Threshold: THRESHOLDS.tableSystemErrors.atLeast, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(
      systemErrors.Metrics.filter((m: { MetricStat?: { Metric: { MetricName: string } } }) => m.MetricStat?.Metric.MetricName === 'SystemErrors').length,
    ).toBeGreaterThanOrEqual(5);
  });

  test('any misconfiguration a function meets (its EMF count) alarms, since the OneBot receiver answers 200 through it', () => {
    expect(named('misconfigured')).toMatchObject({
      Namespace: HEALTH_METRICS.namespace,
      MetricName: HEALTH_METRICS.misconfigured,
      Statistic: 'Sum',
      Period: 300,
      Threshold: THRESHOLDS.misconfigured.atLeast,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: HEALTH_METRICS.dimension, Value: { Ref: expect.any(String) } }],
    });
  });

  test.each(FUNCTIONS)('%s has an errors and a throttles alarm', (name) => {
    const dimension = [{ Name: 'FunctionName', Value: { Ref: index.functionId(name) } }];
    expect(named(`${name}-errors`)).toMatchObject({ MetricName: 'Errors', Dimensions: dimension, Threshold: THRESHOLDS.lambdaErrors.atLeast });
    expect(named(`${name}-throttles`)).toMatchObject({ MetricName: 'Throttles', Dimensions: dimension, Threshold: THRESHOLDS.lambdaThrottles.atLeast });
  });

  // The OneBot queue's alarms (infra/onebot-queue.ts) name kept events waiting, and the change feed's
  // (infra/feed.ts) changes not yet told: each notifies on its own.
  const onTheirOwn = [
    'Recordgate-bots-overdue',
    'Recordgate-onebot-queue-waiting',
    'Recordgate-onebot-queue-age',
    'Recordgate-onebot-dead-letters',
    'Recordgate-feed-iterator-age',
    'Recordgate-feed-failed-batches',
    'Recordgate-feed-poison-deliveries',
    'Recordgate-feed-dead-letters',
  ];

  test('overdue bots, the OneBot queue and the change feed alarm on their own; every other alarm feeds the composite, which notifies the topic', () => {
    const topicRef = { Ref: index.ofType('AWS::SNS::Topic')[0][0] };
    expect(named('bots-overdue')).toMatchObject({
      MetricName: HEALTH_METRICS.overdueBots,
      AlarmActions: [topicRef],
      OKActions: [topicRef],
      Threshold: THRESHOLDS.overdueBots.atLeast,
      EvaluationPeriods: THRESHOLDS.overdueBots.of,
      DatapointsToAlarm: THRESHOLDS.overdueBots.datapoints,
    });
    // Deliveries waiting out their backoffs are hidden, received more than three times, so left out
    // of the age; counting them, hidden or not, fires while they wait. Every sample for 15 minutes.
    const waiting = named('onebot-queue-waiting');
    expect(waiting).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topicRef],
      TreatMissingData: 'notBreaching',
    });
    const counted = waiting.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).map((m: { MetricStat: any }) => m.MetricStat);
    expect(counted.map((m: any) => [m.Metric.Namespace, m.Metric.MetricName, m.Stat]).sort()).toEqual([
      ['AWS/SQS', 'ApproximateNumberOfMessagesNotVisible', 'Minimum'],
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Minimum'],
    ]);
    for (const m of counted) expect(m.Metric.Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [sourceQueue().id, 'QueueName'] } }]);
    expect(waiting.EvaluationPeriods * counted[0].Period).toBe(QUEUE_THRESHOLDS.waitingMinutes * 60);
    expect(named('onebot-queue-age')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Threshold: QUEUE_THRESHOLDS.oldestMinutes * 60,
      AlarmActions: [topicRef],
    });
    expect(named('onebot-dead-letters')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueue().id, 'QueueName'] } }],
      Threshold: QUEUE_THRESHOLDS.deadLetters,
      AlarmActions: [topicRef],
    });
    const composite = index.ofType('AWS::CloudWatch::CompositeAlarm')[0][1].Properties;
    expect(composite.AlarmActions).toEqual([topicRef]);
    const rule = JSON.stringify(composite.AlarmRule);
    for (const alarm of alarms.filter((a) => !onTheirOwn.includes(a.AlarmName))) {
      expect(rule).toContain(alarm.id);
      expect(alarm.AlarmActions).toBeUndefined();
    }
    expect(rule).not.toContain(named('bots-overdue').id);
  });

  test('subscribers come from the alarmEmail context', () => {
    expect(index.ofType('AWS::SNS::Subscription')).toEqual([]);
    const endpoints = optionsIndex.ofType('AWS::SNS::Subscription').map(([, s]) => s.Properties.Endpoint);
    expect(endpoints.sort()).toEqual(optionsContext.alarmEmail.split(',').sort());
    template.hasResourceProperties(
      'AWS::SNS::TopicPolicy',
      Match.objectLike({
        PolicyDocument: Match.objectLike({
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        }),
      }),
    );
  });

  test("the topic lets this account's CloudWatch alarms publish, and still refuses insecure transport", () => {
    const policies = index.ofType('AWS::SNS::TopicPolicy').map(([, p]) => p.Properties);
    expect(policies).toHaveLength(1);
    const topicRef = { Ref: index.ofType('AWS::SNS::Topic')[0][0] };
    expect(policies[0].Topics).toEqual([topicRef]);
    const statements = policies[0].PolicyDocument.Statement as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const allow = statements.filter((s) => s.Effect === 'Allow');
    expect(allow).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topicRef,
        Condition: {
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:*']],
            },
          },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      }),
    ]);
    expect(statements.filter((s) => s.Effect === 'Deny')).toEqual([expect.objectContaining({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]);
  });

  test('a dashboard shows them', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  const alarmNamesOf = (variant: 'x86Region' | 'unknownRegionWithLayer') => {
    const at = templateIndex(synthesized(variant).template);
    return [...at.ofType('AWS::CloudWatch::Alarm'), ...at.ofType('AWS::CloudWatch::CompositeAlarm')]
      .map(([, a]) => String(a.Properties.AlarmName).replace(/^Recordgate-/, ''))
      .sort();
  };

  test('alarms=essential keeps what says the service is down or losing data: health, 5xx, misconfiguration, bots, kept events, changes given up or undelivered, and the crashes no API answer shows', () => {
    const background = FUNCTIONS.filter((fn) => !(HTTP_FUNCTIONS as ReadonlyArray<string>).includes(fn));
    expect(background.length).toBeGreaterThan(0);
    expect(alarmNamesOf('x86Region')).toEqual(
      [
        'service',
        'health',
        'api-5xx',
        'misconfigured',
        'bots-overdue',
        'onebot-queue-waiting',
        'onebot-queue-age',
        'onebot-dead-letters',
        'feed-iterator-age',
        'feed-failed-batches',
        'feed-poison-deliveries',
        'feed-dead-letters',
        ...background.map((fn) => `${fn}-errors`),
      ].sort(),
    );
  });

  test('alarms=none creates no alarm, and keeps the topic, its output and the dashboard', () => {
    expect(alarmNamesOf('unknownRegionWithLayer')).toEqual([]);
    const none = synthesized('unknownRegionWithLayer').template;
    none.resourceCountIs('AWS::SNS::Topic', 1);
    none.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(Object.keys(none.toJSON().Outputs)).toContain('AlarmTopicArn');
    expect(refused({ alarms: 'some' })).toThrow(/alarms/);
  });
});

test('outputs the API URL, table name, topic ARN and the OneBot receiver URLs', () => {
  const outputs = Object.keys(template.toJSON().Outputs);
  expect(outputs).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'AlarmTopicArn', 'ApiTokensSecretArn', 'OneBotSecretArn']));
  expect(outputs.includes('OneBotUrls')).toBe(ROUTES.some((r) => (r.function as string) === 'onebot'));
});

test('the onebotSelfIds context reaches the receiver as ONEBOT_SELF_IDS, and only the receiver', () => {
  const functions = options.findResources('AWS::Lambda::Function');
  const withList = Object.values(functions).filter((f) => f.Properties.Environment?.Variables?.ONEBOT_SELF_IDS !== undefined);
  expect(withList.map((f) => [f.Properties.Description, f.Properties.Environment.Variables.ONEBOT_SELF_IDS])).toEqual([['recordgate onebot', '10001,10002']]);
  expect(refused({ onebotSelfIds: 'bot-a' })).toThrow(/a bot account is a number/);
});

test('with jwtIssuer, every token-route function learns the scope prefix and no other function does', () => {
  const functions = options.findResources('AWS::Lambda::Function');
  const withPrefix = Object.values(functions)
    .filter((f) => f.Properties.Environment?.Variables?.JWT_SCOPE_PREFIX === optionsContext.jwtScopePrefix)
    .map((f) => String(f.Properties.Description).replace('recordgate ', ''))
    .sort();
  expect(withPrefix).toEqual([...new Set(tokenRoutes.map((r) => r.function))].sort());
});

test('the table deletes items past their _ttl (DynamoDB TTL), the attribute the store writes', () => {
  template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } });
});

test('the corsOrigins context reaches every HTTP function as CORS_ORIGINS; without it CORS stays off', () => {
  const variables = (synthesis: typeof template) =>
    Object.values(synthesis.findResources('AWS::Lambda::Function')).map((f) => [f.Properties.Description, f.Properties.Environment?.Variables?.CORS_ORIGINS]);
  const withCors = variables(options);
  const http = withCors.filter(([, origins]) => origins !== undefined);
  expect(http.map(([, origins]) => origins)).toEqual(http.map(() => 'https://app.example.com,https://*.example.org'));
  expect(http.map(([name]) => name).sort()).toEqual(HTTP_FUNCTIONS.map((fn) => `recordgate ${fn}`).sort());
  expect(variables(template).filter(([, origins]) => origins !== undefined)).toEqual([]);
  expect(refused({ corsOrigins: 'https://app.example.com/path' })).toThrow(/an origin is/);
});
