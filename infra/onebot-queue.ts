import { Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEPLOYED_VARIABLES } from '../shared/config';
import { ONEBOT_QUEUE } from '../shared/limits';
import { maxReceiveCount } from '../shared/onebot/keep/backoff';
import { BLOB_PREFIXES } from '../shared/onebot/store/blobs';
import { serviceFunction, type FunctionResources } from './service-function';

/** The queue alarms, stated once here and in the README. */
export const QUEUE_THRESHOLDS = {
  /**
   * Kept deliveries still unstored for this many minutes: the table has been unreachable that
   * long. Counted as messages in the queue, hidden or not: SQS leaves a message received three
   * times out of its oldest-message age, so that age cannot see a delivery waiting for the table.
   */
  waitingMinutes: 15,
  /** A kept delivery nobody received for this many minutes: the consumer is not polling. */
  oldestMinutes: 15,
  /** Any delivery that failed maxReceiveCount times. */
  deadLetters: 1,
};

export interface OneBotQueueProps extends FunctionResources {
  /** The receiver, which sends to the queue and writes big bodies to the bucket. */
  receiver: IFunction;
}

/**
 * Where the OneBot receiver keeps verified deliveries while the table is unreachable (no
 * sender re-sends after an HTTP error, so answering 5xx would lose them): an SQS queue with a
 * dead-letter queue, drained by the onebot_queue function through the same deduplication; and
 * a bucket for bodies too big for a queue message or a record.
 */
export class OneBotQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly bucket: Bucket;
  readonly function: LambdaFunction;

  constructor(scope: Construct, id: string, props: OneBotQueueProps) {
    super(scope, id);
    // SQS keeps a dead letter until its first send plus the dead-letter queue's retention: longer than the queue's.
    const deadLetterRetention = Duration.days(ONEBOT_QUEUE.deadLetterRetentionDays);
    // A retained stack keeps the deliveries still waiting: they are events no sender will send again.
    const removalPolicy = props.logRemovalPolicy;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      retentionPeriod: deadLetterRetention,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    this.queue = new Queue(this, 'Queue', {
      removalPolicy,
      retentionPeriod: Duration.days(ONEBOT_QUEUE.retentionDays),
      visibilityTimeout: Duration.seconds(ONEBOT_QUEUE.visibilitySeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The consumer's backoff spreads these receives over the retention (shared/onebot/keep/backoff.ts).
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: maxReceiveCount() },
    });
    this.bucket = new Bucket(this, 'Bodies', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Big events are records' bodies: kept with the table's policy. A destroyed stack empties it first,
      // since CloudFormation cannot delete a bucket that holds objects.
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
      lifecycleRules: [
        // A queued body outlives every message that points at it, a dead letter's too: S3 counts from the
        // put, which comes before the send the dead-letter queue counts from, and rounds up to midnight UTC.
        { prefix: BLOB_PREFIXES.deliveries, expiration: deadLetterRetention.plus(Duration.days(1)) },
        // An event's body is its record's data, kept while the record is: no expiry, only stray uploads go.
        { prefix: BLOB_PREFIXES.events, abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    this.function = serviceFunction(this, 'onebot_queue', props);
    // Its grant (sqs:ChangeMessageVisibility among the consume actions) is what hides a delivery for its backoff.
    this.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: ONEBOT_QUEUE.batchSize, reportBatchItemFailures: true, maxConcurrency: ONEBOT_QUEUE.maxConcurrency }),
    );
    // Exactly PutObject and GetObject on its objects: the grant helpers add wildcard actions (s3:GetObject*, s3:List*).
    const bodies = new PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [this.bucket.arnForObjects('*')] });
    for (const fn of [props.receiver, this.function]) fn.addToRolePolicy(bodies);
    this.queue.grantSendMessages(props.receiver);
    for (const fn of [props.receiver as LambdaFunction, this.function]) {
      fn.addEnvironment(DEPLOYED_VARIABLES.onebotBucket, this.bucket.bucketName);
      // The receiver sends to it; the consumer changes its messages' visibility.
      fn.addEnvironment(DEPLOYED_VARIABLES.onebotQueueUrl, this.queue.queueUrl);
    }

    const validations = Validations.of(Stack.of(this));
    validations.acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*]`,
      reason: 'The OneBot functions put and get the bodies in this one bucket, each under a key they make; <bucket>/* names its objects and nothing else.',
    });
    validations.acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket is written and read only by the two OneBot functions, whose own logs record each body they keep; server access logs would add a second bucket for nothing.',
    });
    validations.acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This queue is the dead-letter queue of the OneBot queue.' });
  }

  /** Alarms on kept deliveries waiting too long, on a consumer that does not poll, and on any dead letter, reporting to the alarm topic. */
  alarmTo(topic: ITopic): Alarm[] {
    const prefix = Stack.of(this).stackName;
    const fiveMinutes = Duration.minutes(5);
    const alarms = [
      new Alarm(this, 'WaitingAlarm', {
        alarmName: `${prefix}-onebot-queue-waiting`,
        alarmDescription: `OneBot events kept while the table was unreachable have waited ${QUEUE_THRESHOLDS.waitingMinutes} minutes to be stored`,
        // Hidden (waiting out a backoff, or being stored) plus visible: never under 1 in any sample for the whole time.
        metric: new MathExpression({
          expression: 'hidden + visible',
          usingMetrics: {
            hidden: this.queue.metricApproximateNumberOfMessagesNotVisible({ statistic: 'Minimum', period: fiveMinutes }),
            visible: this.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Minimum', period: fiveMinutes }),
          },
          period: fiveMinutes,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: QUEUE_THRESHOLDS.waitingMinutes / 5,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'AgeAlarm', {
        alarmName: `${prefix}-onebot-queue-age`,
        alarmDescription: `A OneBot event kept while the table was unreachable has not been received for ${QUEUE_THRESHOLDS.oldestMinutes} minutes: the consumer is not polling`,
        metric: this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: fiveMinutes }),
        threshold: QUEUE_THRESHOLDS.oldestMinutes * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'DeadLetterAlarm', {
        alarmName: `${prefix}-onebot-dead-letters`,
        alarmDescription: `A kept OneBot event failed to be stored ${maxReceiveCount()} times and waits in the dead-letter queue (${ONEBOT_QUEUE.deadLetterRetentionDays} days from its receipt at most)`,
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: fiveMinutes }),
        threshold: QUEUE_THRESHOLDS.deadLetters,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const alarm of alarms) alarm.addAlarmAction(new SnsAction(topic));
    return alarms;
  }
}
