import { Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { serviceFunction, type FunctionResources } from './function';

/** The queue alarms, stated once here and in the README. */
export const QUEUE_THRESHOLDS = {
  /** A kept delivery still unstored after this many minutes: the table has been unreachable that long. */
  oldestMinutes: 15,
  /** Any delivery that failed maxReceiveCount times. */
  deadLetters: 1,
};

/** Receives a kept delivery 5 times (the consumer retries after the visibility timeout) before it is a dead letter. */
const MAX_RECEIVE_COUNT = 5;

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
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: OneBotQueueProps) {
    super(scope, id);
    const retention = Duration.days(14);
    this.deadLetters = new Queue(this, 'DeadLetters', { retentionPeriod: retention, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
    this.queue = new Queue(this, 'Queue', {
      retentionPeriod: retention,
      // Six times the function timeout, as AWS advises for an SQS event source.
      visibilityTimeout: Duration.seconds(60),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.bucket = new Bucket(this, 'Bodies', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Big events are records' bodies: kept with the table's policy. Queue overflow is done with once stored.
      removalPolicy: props.logRemovalPolicy === RemovalPolicy.DESTROY ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      lifecycleRules: [{ prefix: 'onebot-deliveries/', expiration: retention }],
    });

    this.function = serviceFunction(this, 'onebot_queue', props);
    this.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    // Exactly PutObject and GetObject on its objects: the grant helpers add wildcard actions (s3:GetObject*, s3:List*).
    const bodies = new PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [this.bucket.arnForObjects('*')] });
    for (const fn of [props.receiver, this.function]) fn.addToRolePolicy(bodies);
    this.queue.grantSendMessages(props.receiver);
    for (const fn of [props.receiver as NodejsFunction, this.function]) fn.addEnvironment('ONEBOT_BUCKET', this.bucket.bucketName);
    (props.receiver as NodejsFunction).addEnvironment('ONEBOT_QUEUE_URL', this.queue.queueUrl);

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

  /** Alarms on a kept delivery waiting too long and on any dead letter, reporting to the alarm topic. */
  alarmTo(topic: ITopic): Alarm[] {
    const prefix = Stack.of(this).stackName;
    const alarms = [
      new Alarm(this, 'AgeAlarm', {
        alarmName: `${prefix}-onebot-queue-age`,
        alarmDescription: `A OneBot event kept while the table was unreachable has waited over ${QUEUE_THRESHOLDS.oldestMinutes} minutes to be stored`,
        metric: this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: Duration.minutes(5) }),
        threshold: QUEUE_THRESHOLDS.oldestMinutes * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'DeadLetterAlarm', {
        alarmName: `${prefix}-onebot-dead-letters`,
        alarmDescription: `A kept OneBot event failed to be stored ${MAX_RECEIVE_COUNT} times and waits in the dead-letter queue`,
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(5) }),
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
