import { readFileSync } from 'node:fs';
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, StartingPosition, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEPLOYED_VARIABLES } from '../shared/config';
import { RETRY_SCHEDULE_SECONDS } from '../shared/feed/schedule';
import { checkSubscriptions } from '../shared/feed/check-subscriptions';
import { DEAD_LETTER_LOG_CODE } from '../shared/feed/deliver-queued';
import type { Subscription } from '../shared/feed/subscriptions';
import { FEED_DELIVERY } from '../shared/limits';
import { allModels } from '../shared/models/every-model';
import { catalogOf } from '../shared/models/catalog-of';
import type { Model } from '../shared/models/model';
import { partitionKey } from '../shared/store/keys';
import { TABLE_KEY } from '../shared/store/table';
import { serviceFunction, type FunctionResources } from './service-function';

/**
 * The stream's event source mapping and the deliveries' queue: read by the stack alone, so kept
 * here rather than in shared/limits.ts, which every function's bundle loads.
 */
export const FEED_STREAM = {
  /** Stream records per invocation (Lambda's default for DynamoDB): the cost per million changes in docs/deploying.md follows it. */
  batchSize: 100,
  /**
   * Retries of a failing batch, halved by bisect on each (a split is not counted), and the age
   * past which a record is given up to the on-failure queue: a record that fails for an hour
   * stops holding back its shard, and 23 h of the stream's 24 h retention are left to replay it
   * (POST /api/feed/{subscription}/replay with `since`).
   */
  maxRetryAttempts: 10,
  maxRecordAgeSeconds: 3600,
  /** Days the on-failure queue keeps a failed batch's description (SQS's maximum). */
  failureRetentionDays: 14,
} as const;

export const FEED_QUEUE = {
  /** Six times the consumer's timeout, as AWS advises for an SQS event source (see ONEBOT_QUEUE in shared/limits.ts). */
  visibilitySeconds: 6 * FEED_DELIVERY.timeoutSeconds,
  /**
   * Days a delivery may wait, SQS's maximum: a record's group delivers one change at a time, so
   * with an endpoint down its k-th change waits out k schedules of about 28 h each.
   */
  retentionDays: 14,
  /** Days the poison-message queue keeps one; a FIFO queue's dead letter counts from when it was moved. */
  deadLetterRetentionDays: 14,
  /**
   * Receives beyond the schedule's attempts before SQS moves a message to the poison-message
   * queue: the deliverer dead-letters after the last attempt itself, so only a message whose
   * handling keeps crashing gets there.
   */
  spareReceives: 12,
  /**
   * One message per invocation. A FIFO batch holds a group's next messages behind its first, and
   * when the first fails they go back unattempted with their receive counts grown: behind a change
   * retried 8 times, the 3rd of a record would pass the poison queue's count before its own first
   * attempt. Alone in a batch, a message is received once per attempt, and its group waits
   * unreceived.
   */
  batchSize: 1,
  /**
   * Invocations at once, each one attempt of up to 15 s: 50 keeps a backlog of slow endpoints to
   * 5% of an account's default 1,000, and delivers about 250 changes a second to endpoints that
   * answer in 200 ms.
   */
  maxConcurrency: 50,
} as const;

/** The feed's alarms, stated once here and in docs/deploying.md. */
export const FEED_THRESHOLDS = {
  /** The consumer is this far behind the stream (Lambda's IteratorAge), well before records reach FEED_STREAM.maxRecordAgeSeconds. */
  iteratorAgeMinutes: 15,
  /** Any batch given up to the on-failure queue, any delivery that crashed its handler into the poison-message queue. */
  failedBatches: 1,
  poisonMessages: 1,
  /** Any delivery dead-lettered after the schedule's last attempt. */
  deadLetters: 1,
};

/** A bus a subscription names other than "default", as an ARN for the grant: a name is this account's and region's. */
const busArn = (scope: Construct, bus: string): string =>
  bus.startsWith('arn:')
    ? bus
    : Stack.of(scope).formatArn({ service: 'events', resource: 'event-bus', resourceName: bus, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });

/**
 * The SUBSCRIPTIONS file named by `-c subscriptionsFile`, checked as `npm start` checks the
 * variable (shared/feed/check-subscriptions.ts), against the models served (unset: the shipped
 * catalog's): the synth stops on a bad entry, naming it by position and field, never by value.
 */
export async function subscriptionsAtSynth(file: string | undefined, models?: ReadonlyArray<Model>): Promise<Subscription[]> {
  if (file === undefined) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`subscriptionsFile ${file}: ${(error as Error).message}`);
  }
  try {
    return await checkSubscriptions(text, models && catalogOf(Object.fromEntries(models.map((m) => [m.name, async () => m]))));
  } catch (error) {
    throw new Error(`subscriptionsFile ${file}: ${(error as Error).message}`);
  }
}

/** A filter pattern's longest (https://docs.aws.amazon.com/lambda/latest/api/API_Filter.html). */
const MAX_FILTER_PATTERN = 4096;

/**
 * Lambda event filtering (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html):
 * only stream records of a catalog model's items (`pk` = `<model>#<shard>`) invoke the consumer;
 * the service's own items (`_layout`, `_idempotency#...`, `#health`, the feed's dead letters)
 * never do, and filtered-out records are not billed as invocations. A model with aggregates also
 * keeps counters and contributions under `<model>#aggregate...` (shared/aggregates/keys.ts): its
 * record partitions are named one by one, so the consumer's own writes do not invoke it again.
 */
export function recordItemsFilter(models: ReadonlyArray<Model> = allModels()) {
  // pk is `<model>#<shard>` (shared/store/keys.ts partitionKey): its prefix up to the shard names the model.
  const partitions = (m: Model): Array<string | { prefix: string }> =>
    Object.keys(m.aggregates ?? {}).length === 0 ? [{ prefix: `${m.name}#` }] : Array.from({ length: m.shards }, (_, shard) => partitionKey(m, shard));
  const pattern = { dynamodb: { Keys: { [TABLE_KEY.partitionKey]: { S: models.flatMap(partitions) } } } };
  const length = JSON.stringify(pattern).length;
  if (length > MAX_FILTER_PATTERN)
    throw new Error(`the change feed's stream filter is ${length} characters, over Lambda's ${MAX_FILTER_PATTERN}: too many models`);
  return pattern;
}

export interface ChangeFeedProps extends FunctionResources {
  subscriptions: ReadonlyArray<Subscription>;
  /** The admin routes' functions (GET /api/feed, POST /api/feed/{subscription}/replay), which find the deliveries' queue as the consumer does. */
  admin: { status: LambdaFunction; replay: LambdaFunction };
}

/**
 * The change feed in AWS (docs/feed.md "In AWS"): the table's stream read by functions/feed,
 * which sends webhook deliveries to a FIFO queue drained by functions/feed_delivery, and puts
 * bus subscriptions' events on EventBridge. Nothing here touches a write: the stream is read
 * by Lambda's event source mapping, after the write has answered.
 */
/** The four figures of the feed that alarms watch, as metrics or as the alarms on them. */
export interface FeedWatch<T> {
  iteratorAge: T;
  failedBatches: T;
  poisonDeliveries: T;
  deadLetters: T;
}

export class ChangeFeed extends Construct {
  readonly consumer: LambdaFunction;
  readonly delivery: LambdaFunction;
  readonly deliveries: Queue;
  readonly poisonMessages: Queue;
  readonly failedBatches: Queue;
  readonly bus: EventBus;
  /** Dead letters written, counted from the deliverer's log (per stack: the namespace names it). */
  readonly deadLetters: Metric;

  constructor(scope: Construct, id: string, props: ChangeFeedProps) {
    super(scope, id);
    const encrypted = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: props.logRemovalPolicy };

    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `${Stack.of(this).stackName}-feed`,
      description: 'recordgate change feed: source recordgate, detail-type <model>.<op>',
    });

    // The on-failure destination: Lambda sends it a description of each batch it gave up (shard, sequence numbers), not the records.
    this.failedBatches = new Queue(this, 'FailedBatches', { ...encrypted, retentionPeriod: Duration.days(FEED_STREAM.failureRetentionDays) });
    this.poisonMessages = new Queue(this, 'PoisonDeliveries', { ...encrypted, fifo: true, retentionPeriod: Duration.days(FEED_QUEUE.deadLetterRetentionDays) });
    this.deliveries = new Queue(this, 'Deliveries', {
      ...encrypted,
      fifo: true,
      // High-throughput FIFO: a group is one (subscription, record), so deduplication per group loses nothing.
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      retentionPeriod: Duration.days(FEED_QUEUE.retentionDays),
      visibilityTimeout: Duration.seconds(FEED_QUEUE.visibilitySeconds),
      deadLetterQueue: { queue: this.poisonMessages, maxReceiveCount: RETRY_SCHEDULE_SECONDS.length + FEED_QUEUE.spareReceives },
    });

    this.consumer = serviceFunction(this, 'feed', props);
    this.consumer.addEventSource(
      new DynamoEventSource(props.table, {
        // A new mapping starts at the stream's tip: one made by a later deploy must not send the last 24 h again.
        startingPosition: StartingPosition.LATEST,
        batchSize: FEED_STREAM.batchSize,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: FEED_STREAM.maxRetryAttempts,
        maxRecordAge: Duration.seconds(FEED_STREAM.maxRecordAgeSeconds),
        onFailure: new SqsDlq(this.failedBatches),
        filters: [FilterCriteria.filter(recordItemsFilter(props.models.all))],
      }),
    );
    this.deliveries.grantSendMessages(this.consumer);

    this.delivery = serviceFunction(this, 'feed_delivery', props);
    // Its grant (sqs:ChangeMessageVisibility among the consume actions) is what hides a delivery until its next attempt.
    this.delivery.addEventSource(
      new SqsEventSource(this.deliveries, { batchSize: FEED_QUEUE.batchSize, reportBatchItemFailures: true, maxConcurrency: FEED_QUEUE.maxConcurrency }),
    );
    const { status, replay } = props.admin;
    for (const fn of [this.consumer, this.delivery, status, replay]) fn.addEnvironment(DEPLOYED_VARIABLES.feedQueueUrl, this.deliveries.queueUrl);
    // The state counts the queue (SQS counts no message group); a replay sends to it as the consumer does.
    this.deliveries.grant(status, 'sqs:GetQueueAttributes');
    this.deliveries.grantSendMessages(replay);
    // Dead letters counted from the deliverer's log, with nothing added to it. A term match, not a
    // JSON field: Lambda's JSON log format wraps the deliverer's own JSON line in its `message`.
    const counted = new MetricFilter(this, 'DeadLetterCount', {
      logGroup: this.delivery.logGroup,
      filterPattern: FilterPattern.allTerms(DEAD_LETTER_LOG_CODE),
      metricNamespace: `Recordgate/${Stack.of(this).stackName}`,
      metricName: 'FeedDeadLetters',
      metricValue: '1',
    });
    this.deadLetters = counted.metric({ statistic: 'Sum', period: Duration.minutes(5) });

    // PutEvents only to the buses the checked subscriptions name: the stack's own for "default".
    const buses = [...new Set(props.subscriptions.flatMap((s) => ('bus' in s ? [s.bus] : [])))];
    if (buses.includes('default')) this.consumer.addEnvironment(DEPLOYED_VARIABLES.feedBusName, this.bus.eventBusName);
    if (buses.length > 0)
      this.consumer.addToRolePolicy(
        new PolicyStatement({ actions: ['events:PutEvents'], resources: buses.map((bus) => (bus === 'default' ? this.bus.eventBusArn : busArn(this, bus))) }),
      );

    Validations.of(Stack.of(this)).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "These queues are dead-letter queues: the stream consumer's on-failure destination and the deliveries' poison-message queue.",
    });
  }

  /** What the feed's alarms watch, for them and for the dashboard (which draws them alone under `-c alarms=none`). */
  metrics(): FeedWatch<Metric> {
    const visible = (queue: Queue) => queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(5) });
    return {
      iteratorAge: this.consumer.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      failedBatches: visible(this.failedBatches),
      poisonDeliveries: visible(this.poisonMessages),
      deadLetters: this.deadLetters,
    };
  }

  /** Alarms on a consumer falling behind the stream, a batch given up, and a delivery whose handling keeps crashing. */
  alarmTo(topic: ITopic): FeedWatch<Alarm> {
    const prefix = Stack.of(this).stackName;
    const metrics = this.metrics();
    const alarm = (id: string, name: string, description: string, metric: Metric, threshold: number) =>
      new Alarm(this, id, {
        alarmName: `${prefix}-${name}`,
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    const alarms = {
      iteratorAge: alarm(
        'IteratorAgeAlarm',
        'feed-iterator-age',
        `The change feed's consumer is ${FEED_THRESHOLDS.iteratorAgeMinutes} minutes behind the table's stream; at ${FEED_STREAM.maxRecordAgeSeconds / 60} minutes records are given up`,
        metrics.iteratorAge,
        FEED_THRESHOLDS.iteratorAgeMinutes * 60_000,
      ),
      failedBatches: alarm(
        'FailedBatchesAlarm',
        'feed-failed-batches',
        'The change feed gave up stream records: their shard and sequence numbers wait in the on-failure queue; replay them from the stream within 24 h',
        metrics.failedBatches,
        FEED_THRESHOLDS.failedBatches,
      ),
      poisonDeliveries: alarm(
        'PoisonDeliveriesAlarm',
        'feed-poison-deliveries',
        'A webhook delivery crashed its handler on every receive and waits in the poison-message queue',
        metrics.poisonDeliveries,
        FEED_THRESHOLDS.poisonMessages,
      ),
      deadLetters: alarm(
        'DeadLettersAlarm',
        'feed-dead-letters',
        'A webhook delivery failed every attempt of the schedule and is a dead letter: GET /api/feed shows it, POST /api/feed/{subscription}/replay re-sends it',
        metrics.deadLetters,
        FEED_THRESHOLDS.deadLetters,
      ),
    };
    for (const a of Object.values(alarms)) a.addAlarmAction(new SnsAction(topic));
    return alarms;
  }
}
