import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEED_QUEUE, FEED_STREAM, FEED_THRESHOLDS, subscriptionsAtSynth } from '../../../infra/feed';
import { passesRecordItemsFilter } from '../../support/record-items-filter';
import { DEAD_LETTER_LOG_CODE } from '../../../shared/feed/deliver-queued';
import { readContext } from '../../../infra/context';
import { RETRY_SCHEDULE_SECONDS } from '../../../shared/feed/schedule';
import { FUNCTION_DESCRIPTORS, FUNCTIONS } from '../../../shared/manifest/functions';
import { AWS_LIMITS } from '../../../shared/limits';
import { allModels } from '../../../shared/models/every-model';
import { defineModel } from '../../../shared/models/define';
import { accessOf, deployedFunctions } from '../../../infra/access';
import * as z from 'zod';
import { SYNTH_VARIANTS, assemblyOf, synthesized, templateIndex } from '../../support/synth';

// The change feed's resources as the stack deploys them (infra/feed.ts): the table's stream,
// functions/feed on it, the deliveries' FIFO queue and functions/feed_delivery, the bus, the
// SUBSCRIPTIONS secret, the alarms; and that nothing of it reaches the functions that write.
const { template } = synthesized('default');
const index = templateIndex(template);
const options = templateIndex(synthesized('options').template);
const existing = templateIndex(synthesized('x86Region').template);
const FEED_FUNCTIONS = ['feed', 'feed_delivery'];
// GET /api/feed and POST /api/feed/{subscription}/replay: admin routes that reach the queue and the secret.
const ADMIN_FUNCTIONS = ['feed_status', 'feed_replay'];
const STREAM_READS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];

const queues = (ix = index) => ix.ofType('AWS::SQS::Queue').map(([id, q]) => ({ id, ...q.Properties }));
const queue = (prefix: string, ix = index) => queues(ix).find((q) => q.id.startsWith(prefix))!;
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const deliveries = () => queue('FeedDeliveries');
const mappingOf = (name: string, ix = index) =>
  ix.ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === ix.functionId(name))![1].Properties;

describe('the stream', () => {
  test('the table streams both images of every write', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  // What `cdk deploy` would do to a table deployed before the feed: the CDK CLI's own diff, which
  // marks a change CloudFormation makes by replacing the resource with "replace".
  const diffAgainst = (change: (table: { Properties: Record<string, unknown> }) => void): string => {
    const before = JSON.parse(JSON.stringify(template.toJSON()));
    for (const resource of Object.values<{ Type: string; Properties: Record<string, unknown> }>(before.Resources))
      if (resource.Type === 'AWS::DynamoDB::GlobalTable') change(resource);
    const file = join(mkdtempSync(join(tmpdir(), 'recordgate-diff-')), 'before.json');
    writeFileSync(file, JSON.stringify(before));
    const cdk = spawnSync(process.execPath, [require.resolve('aws-cdk/bin/cdk'), 'diff', '--app', assemblyOf('default'), '--template', file, 'Recordgate'], {
      encoding: 'utf8',
      env: { ...process.env, AWS_REGION: 'us-east-1', CDK_DISABLE_VERSION_CHECK: '1' },
    });
    return `${cdk.stdout}${cdk.stderr}`;
  };
  const tableLine = (diff: string) => diff.split('\n').find((line) => line.includes('AWS::DynamoDB::GlobalTable'))!;

  test('a table deployed without the stream gains it in place (UpdateTable), never by a replacement', () => {
    const diff = diffAgainst((table) => delete table.Properties.StreamSpecification);
    expect(tableLine(diff)).toMatch(/^\[~\] AWS::DynamoDB::GlobalTable /);
    expect(tableLine(diff)).not.toMatch(/replace/);
    expect(diff).toContain('[+] StreamSpecification');
    // The same diff does say "replace" where CloudFormation would replace the table.
    expect(tableLine(diffAgainst((table) => (table.Properties.TableName = 'another')))).toMatch(/ replace$/);
  }, 120_000);

  test('an existing table needs its stream ARN, which the consumer then reads', () => {
    const refused = (context: Record<string, unknown>) => () =>
      readContext({ tryGetContext: (key: string) => context[key] } as Parameters<typeof readContext>[0]);
    expect(refused({ tableName: 'Kept-Table' })).toThrow(/tableName needs tableStreamArn.*update-table.*NEW_AND_OLD_IMAGES/);
    expect(refused({ tableStreamArn: SYNTH_VARIANTS.x86Region.context.tableStreamArn })).toThrow(/tableStreamArn goes with tableName/);
    expect(mappingOf('feed', existing).EventSourceArn).toBe(SYNTH_VARIANTS.x86Region.context.tableStreamArn);
  });
});

describe('functions/feed on the stream', () => {
  test('bisects a failing batch, reports item failures, retries a bounded number of times and ages out to the on-failure queue', () => {
    expect(mappingOf('feed')).toEqual(
      expect.objectContaining({
        EventSourceArn: { 'Fn::GetAtt': [index.ofType('AWS::DynamoDB::GlobalTable')[0][0], 'StreamArn'] },
        StartingPosition: 'LATEST',
        BatchSize: FEED_STREAM.batchSize,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRetryAttempts: FEED_STREAM.maxRetryAttempts,
        MaximumRecordAgeInSeconds: FEED_STREAM.maxRecordAgeSeconds,
        DestinationConfig: { OnFailure: { Destination: arnOf(queue('FeedFailedBatches').id) } },
      }),
    );
    // Given up well inside the stream's 24 h, so a replay from the stream can still find the records.
    expect(FEED_STREAM.maxRecordAgeSeconds).toBeLessThanOrEqual(6 * 3600);
    expect(queue('FeedFailedBatches')).toMatchObject({ MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true });
    expect([...index.actionsOf('feed')]).toEqual(expect.arrayContaining(['sqs:SendMessage', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']));
  });

  test('only record items of catalog models invoke it: a prefix filter on the partition key, within its 4 KB', () => {
    const [filter] = mappingOf('feed').FilterCriteria.Filters;
    expect(JSON.parse(filter.Pattern)).toEqual({ dynamodb: { Keys: { pk: { S: allModels().map((m) => ({ prefix: `${m.name}#` })) } } } });
    expect(filter.Pattern.length).toBeLessThanOrEqual(4096);
    const passes = (pk: string) => passesRecordItemsFilter(pk);
    expect(['reaction#0', 'onebot_event#3'].every(passes)).toBe(true);
    expect(['_layout', '#health', '_idempotency#create', '_feed#dead'].some(passes)).toBe(false);
  });
});

test('the consumer gets the table, and exactly the writes that keep aggregates, only in a stack whose models declare an aggregate', () => {
  const counted = defineModel({
    name: 'counted',
    description: 'test',
    schema: z.strictObject({ content: z.string() }),
    aggregates: { by_content: { group_by: ['content'], count: true } },
  });
  expect(accessOf('feed', [...allModels(), counted]).tableActions).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
  expect(accessOf('feed', allModels()).tableActions).toEqual([]);
  // The shipped models declare none: the deployed consumer neither knows the table nor may write it.
  expect(index.functionProps('feed').Environment.Variables.TABLE_NAME).toBeUndefined();
  expect([...index.actionsOf('feed')].filter((a) => /^dynamodb:(Get|Put|Update|Delete)Item$/.test(a))).toEqual([]);
  // Nothing else changes with them: every other function's access is its descriptor's.
  for (const name of FUNCTIONS.filter((f) => f !== 'feed')) expect(accessOf(name, [counted])).toEqual(accessOf(name, []));
});

test("a model with aggregates has its record partitions named one by one: the consumer's own writes of counters and contributions invoke it not", () => {
  const counted = defineModel({
    name: 'counted',
    description: 'test',
    schema: z.strictObject({ content: z.string() }),
    shards: 3,
    aggregates: { by_content: { group_by: ['content'], count: true } },
  });
  jest.isolateModules(() => {
    jest.doMock('../../../shared/models/every-model', () => ({ allModels: () => [...allModels(), counted] }));
    const { recordItemsFilter: filterOf } = require('../../../infra/feed') as typeof import('../../../infra/feed');
    const passes = (pk: string) => passesRecordItemsFilter(pk, filterOf());
    expect(['counted#0', 'counted#2', 'reaction#0'].every(passes)).toBe(true);
    expect(['counted#aggregate#by_content', 'counted#aggregated#by_content#1', 'counted#3', '_layout'].some(passes)).toBe(false);
  });
});

test('the synth refuses a catalog whose filter would not fit, rather than a deploy failing on it', () => {
  jest.isolateModules(() => {
    jest.doMock('../../../shared/models/every-model', () => ({ allModels: () => Array.from({ length: 200 }, (_, i) => ({ name: `model_${i}` })) }));
    const { recordItemsFilter: filterOf } = require('../../../infra/feed') as typeof import('../../../infra/feed');
    expect(() => filterOf()).toThrow(/stream filter is \d+ characters, over Lambda's 4096: too many models/);
  });
});

describe('the webhook deliveries', () => {
  const poison = () => queue('FeedPoisonDeliveries');

  test('a FIFO queue, one group per subscription and record, that keeps a delivery through the whole schedule', () => {
    expect(deliveries()).toMatchObject({
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
    });
    expect(deliveries().ContentBasedDeduplication).toBeUndefined();
    const schedule = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0);
    expect(deliveries().MessageRetentionPeriod).toBeGreaterThanOrEqual(schedule);
    expect(deliveries().MessageRetentionPeriod).toBeLessThanOrEqual(14 * 86_400);
    // Each retry is one ChangeMessageVisibility, which SQS caps at 12 hours.
    for (const delay of RETRY_SCHEDULE_SECONDS) expect(delay).toBeLessThanOrEqual(43_200);
    expect(deliveries().VisibilityTimeout).toBeGreaterThanOrEqual(6 * FUNCTION_DESCRIPTORS.feed_delivery.lambda.timeoutSeconds);
  });

  test('a message whose handling keeps crashing goes to a FIFO poison-message queue, only after every attempt of the schedule', () => {
    expect(deliveries().RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(poison().id),
      maxReceiveCount: RETRY_SCHEDULE_SECONDS.length + FEED_QUEUE.spareReceives,
    });
    expect(deliveries().RedrivePolicy.maxReceiveCount).toBeGreaterThan(RETRY_SCHEDULE_SECONDS.length);
    expect(poison()).toMatchObject({ FifoQueue: true, MessageRetentionPeriod: FEED_QUEUE.deadLetterRetentionDays * 86_400 });
  });

  test('functions/feed_delivery takes one message at a time, so a message is received once per attempt, reports its failure, at most 50 at once', () => {
    expect(mappingOf('feed_delivery')).toEqual(
      expect.objectContaining({
        EventSourceArn: arnOf(deliveries().id),
        BatchSize: FEED_QUEUE.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: FEED_QUEUE.maxConcurrency },
      }),
    );
    expect(FEED_QUEUE.batchSize).toBe(1);
    // An attempt's 15 s fit in its timeout, with room for the table's note of it.
    expect(FUNCTION_DESCRIPTORS.feed_delivery.lambda.timeoutSeconds).toBeGreaterThanOrEqual(2 * 15);
    const onQueue = index.statementsOf('feed_delivery').filter((s) => JSON.stringify(s.resources) === JSON.stringify([arnOf(deliveries().id)]));
    expect(onQueue.flatMap((s) => s.actions)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
  });

  test('both feed functions know the queue (FEED_QUEUE_URL) and read SUBSCRIPTIONS from its secret, which starts as []', () => {
    for (const name of FEED_FUNCTIONS)
      expect(index.functionProps(name).Environment.Variables).toMatchObject({
        FEED_QUEUE_URL: { Ref: deliveries().id },
        SUBSCRIPTIONS_SECRET_ARN: { Ref: expect.stringMatching(/^SecretsSubscriptions/) },
      });
    const secret = index.ofType('AWS::SecretsManager::Secret').find(([id]) => id.startsWith('SecretsSubscriptions'))![1].Properties;
    expect(secret.SecretString).toBe('[]');
  });
});

describe('EventBridge', () => {
  const putEvents = (ix: typeof index) => ix.statementsOf('feed').filter((s) => s.actions.includes('events:PutEvents'));

  test('without a subscriptions file no function may put events anywhere, and the stack bus is there for later', () => {
    for (const name of deployedFunctions()) expect(index.statementsOf(name).filter((s) => s.actions.some((a) => a.startsWith('events:')))).toEqual([]);
    expect(index.ofType('AWS::Events::EventBus')).toHaveLength(1);
    expect(index.functionProps('feed').Environment.Variables.FEED_BUS_NAME).toBeUndefined();
  });

  test('with one, the consumer may put events on exactly the buses it names: the stack bus for "default", a name in this account, an ARN as given', () => {
    const [[busId]] = options.ofType('AWS::Events::EventBus');
    expect(putEvents(options)).toEqual([
      {
        actions: ['events:PutEvents'],
        resources: [
          arnOf(busId),
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':events:us-east-1:123456789012:event-bus/partner-bus']] },
          'arn:aws:events:us-east-1:210987654321:event-bus/central',
        ],
      },
    ]);
    expect(options.functionProps('feed').Environment.Variables.FEED_BUS_NAME).toEqual({ Ref: busId });
    expect(options.functionProps('feed_delivery').Environment.Variables.FEED_BUS_NAME).toBeUndefined();
  });

  test('the synth checks the file as npm start checks the variable, naming the bad entry by position and field, never echoing a secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recordgate-subscriptions-'));
    const file = join(dir, 'subscriptions.json');
    const entries = JSON.parse(readFileSync(SYNTH_VARIANTS.options.context.subscriptionsFile, 'utf8'));
    const secret = 'whsec_short';
    writeFileSync(file, JSON.stringify([entries[1], { ...entries[0], secret }]));
    await expect(subscriptionsAtSynth(file)).rejects.toThrow(/subscriptionsFile .*SUBSCRIPTIONS\[1\]\.secret/);
    await expect(subscriptionsAtSynth(file)).rejects.not.toThrow(new RegExp(secret));
    writeFileSync(file, JSON.stringify([{ ...entries[1], models: ['no_such_model'] }]));
    await expect(subscriptionsAtSynth(file)).rejects.toThrow(/SUBSCRIPTIONS\[0\]\.models\[0\]: no model no_such_model/);
    writeFileSync(file, '[{');
    await expect(subscriptionsAtSynth(file)).rejects.toThrow(/is not valid JSON/);
    await expect(subscriptionsAtSynth(join(dir, 'missing.json'))).rejects.toThrow(/subscriptionsFile .*missing\.json/);
    expect(await subscriptionsAtSynth(undefined)).toEqual([]);
  });
});

describe('the admin routes', () => {
  const tableId = () => index.ofType('AWS::DynamoDB::GlobalTable')[0][0];
  const onDeliveries = (name: string) =>
    index
      .statementsOf(name)
      .filter((s) => JSON.stringify(s.resources) === JSON.stringify([arnOf(deliveries().id)]))
      .flatMap((s) => s.actions);

  test('both know the queue (FEED_QUEUE_URL) and read SUBSCRIPTIONS, take admin, and come from the manifest behind their routes', () => {
    for (const name of ADMIN_FUNCTIONS) {
      expect(FUNCTION_DESCRIPTORS[name as 'feed_status' | 'feed_replay'].scope).toBe('admin');
      expect(index.functionProps(name).Environment.Variables).toMatchObject({
        FEED_QUEUE_URL: { Ref: deliveries().id },
        SUBSCRIPTIONS_SECRET_ARN: { Ref: expect.stringMatching(/^SecretsSubscriptions/) },
      });
    }
    const routeKeys = index.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routeKeys).toEqual(expect.arrayContaining(['GET /api/feed', 'POST /api/feed/{subscription}/replay']));
  });

  test('the state counts the queue and may not send to it; a replay sends to it and may not take from it', () => {
    expect(onDeliveries('feed_status')).toEqual(['sqs:GetQueueAttributes']);
    expect(onDeliveries('feed_replay')).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:GetQueueAttributes']));
    for (const name of ADMIN_FUNCTIONS) expect(onDeliveries(name)).not.toEqual(expect.arrayContaining(['sqs:ReceiveMessage']));
    expect(onDeliveries('feed_status')).not.toContain('sqs:SendMessage');
  });

  test("a replay reads the table's stream (its ARN from DescribeTable) and drops dead letters; the state reads only", () => {
    const replay = index.statementsOf('feed_replay');
    const onStream = replay.find((s) => s.actions.includes('dynamodb:GetRecords'))!;
    expect(onStream.actions).toEqual(expect.arrayContaining(STREAM_READS));
    expect(onStream.resources).toEqual([{ 'Fn::GetAtt': [tableId(), 'StreamArn'] }]);
    expect([...index.actionsOf('feed_replay')]).toEqual(expect.arrayContaining(['dynamodb:DescribeTable', 'dynamodb:Query', 'dynamodb:DeleteItem']));
    expect([...index.actionsOf('feed_replay')]).not.toEqual(expect.arrayContaining(['dynamodb:PutItem']));
    expect(JSON.stringify(index.statementsOf('feed_status'))).not.toMatch(/dynamodb:(GetRecords|GetShardIterator|DescribeStream|DeleteItem|PutItem)/);
    // An existing table's stream is the one its context names.
    const existingStream = existing.statementsOf('feed_replay').find((s) => s.actions.includes('dynamodb:GetRecords'))!;
    expect(existingStream.resources).toEqual([SYNTH_VARIANTS.x86Region.context.tableStreamArn]);
  });

  test('a replay may run as long as the HTTP API waits for it, no longer', () => {
    expect(index.functionProps('feed_replay').Timeout).toBe(FUNCTION_DESCRIPTORS.feed_replay.lambda.timeoutSeconds);
    expect(FUNCTION_DESCRIPTORS.feed_replay.lambda.timeoutSeconds * 1000).toBeLessThan(AWS_LIMITS.integrationTimeoutMs);
  });
});

test("the write path is untouched: no function but the feed's and its admin routes' learns of the feed, reaches its queues, bus or secret, or reads the stream", () => {
  const feedIds = [
    ...queues()
      .map((q) => q.id)
      .filter((id) => id.startsWith('Feed')),
    index.ofType('AWS::Events::EventBus')[0][0],
  ];
  for (const name of deployedFunctions().filter((fn) => !FEED_FUNCTIONS.includes(fn) && !ADMIN_FUNCTIONS.includes(fn))) {
    const variables = Object.keys(index.functionProps(name).Environment?.Variables ?? {});
    expect(variables.filter((v) => v.startsWith('FEED_') || v.startsWith('SUBSCRIPTIONS'))).toEqual([]);
    const granted = JSON.stringify(index.statementsOf(name));
    for (const id of [...feedIds, 'SecretsSubscriptions']) expect(granted).not.toContain(id);
    expect(granted).not.toMatch(/dynamodb:(GetRecords|GetShardIterator|DescribeStream)/);
  }
});

describe('alarms', () => {
  const alarms = index.ofType('AWS::CloudWatch::Alarm').map(([id, a]) => ({ id, ...a.Properties }));
  const named = (suffix: string) => alarms.find((a) => a.AlarmName === `Recordgate-${suffix}`)!;
  const topicRef = { Ref: index.ofType('AWS::SNS::Topic')[0][0] };

  test('iterator age of the stream consumer, batches given up, poison deliveries: each notifies the topic', () => {
    expect(named('feed-iterator-age')).toMatchObject({
      MetricName: 'IteratorAge',
      Namespace: 'AWS/Lambda',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: index.functionId('feed') } }],
      Threshold: FEED_THRESHOLDS.iteratorAgeMinutes * 60_000,
      AlarmActions: [topicRef],
    });
    expect(FEED_THRESHOLDS.iteratorAgeMinutes * 60).toBeLessThan(FEED_STREAM.maxRecordAgeSeconds);
    for (const [suffix, queueId, threshold] of [
      ['feed-failed-batches', queue('FeedFailedBatches').id, FEED_THRESHOLDS.failedBatches],
      ['feed-poison-deliveries', queue('FeedPoisonDeliveries').id, FEED_THRESHOLDS.poisonMessages],
    ] as const)
      expect(named(suffix)).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topicRef],
      });
  });

  test("dead letters, counted from feed_delivery's own log by a metric filter: any one notifies the topic", () => {
    const [[, filter]] = index.ofType('AWS::Logs::MetricFilter');
    expect(filter.Properties).toEqual({
      LogGroupName: { Ref: index.functionProps('feed_delivery').LoggingConfig.LogGroup.Ref },
      FilterPattern: `"${DEAD_LETTER_LOG_CODE}"`,
      MetricTransformations: [{ MetricNamespace: 'Recordgate/Recordgate', MetricName: 'FeedDeadLetters', MetricValue: '1' }],
    });
    expect(named('feed-dead-letters')).toMatchObject({
      Namespace: 'Recordgate/Recordgate',
      MetricName: 'FeedDeadLetters',
      Statistic: 'Sum',
      Threshold: FEED_THRESHOLDS.deadLetters,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topicRef],
    });
  });

  test('the dashboard shows them and the deliveries waiting', () => {
    const body = JSON.stringify(index.ofType('AWS::CloudWatch::Dashboard')[0][1].Properties.DashboardBody);
    for (const suffix of ['feed-iterator-age', 'feed-failed-batches', 'feed-poison-deliveries', 'feed-dead-letters']) expect(body).toContain(named(suffix).id);
    expect(body).toContain(queue('FeedDeliveries').id);
  });
});
