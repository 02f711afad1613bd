import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, AlarmRule, AlarmState, ComparisonOperator, CompositeAlarm, MathExpression, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { HEALTH_METRICS } from '../shared/health/metrics';
import { INDEX_SLOTS } from '../shared/store/table';
import type { HealthCheck } from './health-check';

const FIVE_MINUTES = Duration.minutes(5);

/** The alarm thresholds, stated once here and in the README's table. */
export const THRESHOLDS = {
  /** Healthy is 1 per minute; below 1 (or no datapoint) in 2 of 3 minutes alarms. */
  health: { below: 1, datapoints: 2, of: 3 },
  /** Percent of API answers that are 5xx per five minutes, two periods in a row. */
  api5xxPercent: { above: 1, datapoints: 2, of: 2 },
  /** p99 of API Gateway latency per five minutes, three periods in a row (cold starts are ~0.5 s). */
  apiP99Ms: { above: 3000, datapoints: 3, of: 3 },
  /** Any crash, timeout or throttle of a function in five minutes. */
  lambdaErrors: { atLeast: 1 },
  lambdaThrottles: { atLeast: 1 },
  /** Throttle events of the table and its indexes per five minutes, two periods in a row (the SDK retries single ones). */
  tableThrottles: { atLeast: 25, datapoints: 2, of: 2 },
  /** DynamoDB 500s in five minutes. */
  tableSystemErrors: { atLeast: 5 },
  /** Any misconfiguration met (a missing table, grant or credentials) in five minutes. */
  misconfigured: { atLeast: 1 },
  /** A bot overdue with its heartbeat three minutes running. */
  overdueBots: { atLeast: 1, datapoints: 3, of: 3 },
};

// The operations the store issues; a metric-math alarm reads at most 10 metrics.
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * Which alarms a deployment pays for (`-c alarms=`; docs/deploying.md has each level's idle cost):
 * `all`; `essential`, what says the service is down or losing data (the health check, the API's
 * 5xx, a misconfiguration, bots overdue, and the crashes of the functions no API answer shows);
 * `none`, the topic and the dashboard's graphs alone.
 */
export const ALARM_LEVELS = ['all', 'essential', 'none'] as const;
export type AlarmLevel = (typeof ALARM_LEVELS)[number];

export interface ServiceAlarmsProps {
  level: AlarmLevel;
  functions: ReadonlyMap<string, IFunction>;
  /** The functions that answer API requests: their crashes are the API's 5xx, which `essential` watches whole. */
  apiFunctions: ReadonlySet<string>;
  api: HttpApi;
  table: ITableV2;
  healthCheck: HealthCheck;
  emails: string[];
}

/**
 * Every alarm of the service and the SNS topic they report to. The service alarms feed one
 * composite alarm, which is the one that notifies (with the triggering alarms in its message),
 * so an outage is one email, not thirty. Overdue bots are not a service fault and notify on their own.
 */
export class ServiceAlarms extends Construct {
  readonly level: AlarmLevel;
  readonly topic: Topic;
  /** Each alarm the level creates; the dashboard draws the metric alone for the others. */
  readonly health?: Alarm;
  readonly api5xx?: Alarm;
  readonly apiLatency?: Alarm;
  readonly tableThrottles?: Alarm;
  readonly tableSystemErrors?: Alarm;
  readonly misconfigured?: Alarm;
  readonly functionAlarms: Alarm[];
  readonly overdueBots?: Alarm;
  readonly composite?: CompositeAlarm;
  readonly metrics: { health: IMetric; overdueBots: IMetric; api5xxPercent: IMetric; apiLatency: IMetric; tableThrottles: IMetric; tableSystemErrors: IMetric };

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.level = props.level;
    const prefix = Stack.of(this).stackName;
    this.topic = new Topic(this, 'Topic', { displayName: `${prefix} alarms`, enforceSSL: true });
    // enforceSSL's policy replaces the topic's default one, which let CloudWatch publish; without
    // this statement every alarm would go off in silence (docs/decisions.md). Only this account's
    // alarms may publish.
    const { account, partition, region } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': account },
        },
      }),
    );
    for (const email of props.emails) this.topic.addSubscription(new EmailSubscription(email));

    // `when`: the lowest level that creates the alarm; `none` creates none.
    const alarm = (
      name: string,
      description: string,
      metric: IMetric,
      options: {
        when: 'all' | 'essential';
        threshold: number;
        comparison: ComparisonOperator;
        datapoints?: number;
        of?: number;
        missing?: TreatMissingData;
      },
    ): Alarm | undefined =>
      props.level === 'none' || (props.level === 'essential' && options.when === 'all')
        ? undefined
        : new Alarm(this, name, {
            alarmName: `${prefix}-${name}`,
            alarmDescription: description,
            metric,
            threshold: options.threshold,
            comparisonOperator: options.comparison,
            evaluationPeriods: options.of ?? 1,
            datapointsToAlarm: options.datapoints ?? 1,
            treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
          });
    const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

    const t = THRESHOLDS;
    this.metrics = {
      health: props.healthCheck.metric(HEALTH_METRICS.healthy, 'Minimum'),
      overdueBots: props.healthCheck.metric(HEALTH_METRICS.overdueBots, 'Maximum'),
      api5xxPercent: new MathExpression({
        label: 'API 5xx %',
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: props.api.metricServerError({ statistic: 'Sum', period: FIVE_MINUTES }),
          requests: props.api.metricCount({ statistic: 'Sum', period: FIVE_MINUTES }),
        },
        period: FIVE_MINUTES,
      }),
      apiLatency: props.api.metricLatency({ statistic: 'p99', period: FIVE_MINUTES }),
      tableThrottles: new MathExpression({
        label: 'DynamoDB throttle events',
        expression: 'SUM(METRICS())',
        // The table's own events and each index's: an index that cannot keep up throttles writes too.
        usingMetrics: Object.fromEntries(
          [{}, ...INDEX_SLOTS.map((s) => ({ GlobalSecondaryIndexName: s.indexName }))].flatMap((dimensions, i) =>
            (['Read', 'Write'] as const).map((kind) => [
              `${kind.toLowerCase()}${i}`,
              props.table.metric(`${kind}ThrottleEvents`, {
                statistic: 'Sum',
                period: FIVE_MINUTES,
                dimensionsMap: { TableName: props.table.tableName, ...dimensions },
              }),
            ]),
          ),
        ),
        period: FIVE_MINUTES,
      }),
      tableSystemErrors: props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES, statistic: 'Sum' }),
    };

    this.health = alarm('health', 'The scheduled health check found the database unreachable, or did not run', this.metrics.health, {
      when: 'essential',
      threshold: t.health.below,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      datapoints: t.health.datapoints,
      of: t.health.of,
      missing: TreatMissingData.BREACHING,
    });
    this.api5xx = alarm('api-5xx', 'More than 1% of API answers were 5xx for ten minutes', this.metrics.api5xxPercent, {
      when: 'essential',
      threshold: t.api5xxPercent.above,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      datapoints: t.api5xxPercent.datapoints,
      of: t.api5xxPercent.of,
    });
    this.apiLatency = alarm('api-p99-latency', 'API p99 latency above 3 s for fifteen minutes', this.metrics.apiLatency, {
      when: 'all',
      threshold: t.apiP99Ms.above,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      datapoints: t.apiP99Ms.datapoints,
      of: t.apiP99Ms.of,
    });
    this.tableThrottles = alarm('table-throttles', 'DynamoDB is throttling the table or its indexes', this.metrics.tableThrottles, {
      when: 'all',
      threshold: t.tableThrottles.atLeast,
      comparison: atLeast,
      datapoints: t.tableThrottles.datapoints,
      of: t.tableThrottles.of,
    });
    this.tableSystemErrors = alarm('table-system-errors', 'DynamoDB answered with internal errors', this.metrics.tableSystemErrors, {
      when: 'all',
      threshold: t.tableSystemErrors.atLeast,
      comparison: atLeast,
    });
    // The receiver keeps deliveries through a misconfiguration and answers 200, so the 5xx alarm cannot see it there.
    this.misconfigured = alarm(
      'misconfigured',
      'A function met a missing table, a missing grant or credentials AWS does not accept',
      props.healthCheck.metric(HEALTH_METRICS.misconfigured, 'Sum', FIVE_MINUTES),
      { when: 'essential', threshold: t.misconfigured.atLeast, comparison: atLeast },
    );
    this.functionAlarms = [...props.functions]
      .flatMap(([name, fn]) => [
        // A crash of a function no API answer shows (a schedule's, a queue's) is seen here or nowhere.
        alarm(`${name}-errors`, `Function ${name} crashed or timed out`, fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }), {
          when: props.apiFunctions.has(name) ? 'all' : 'essential',
          threshold: t.lambdaErrors.atLeast,
          comparison: atLeast,
        }),
        alarm(
          `${name}-throttles`,
          `Function ${name} was throttled (account concurrency exhausted)`,
          fn.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES }),
          {
            when: 'all',
            threshold: t.lambdaThrottles.atLeast,
            comparison: atLeast,
          },
        ),
      ])
      .filter((a) => a !== undefined);

    const service = [this.health, this.api5xx, this.apiLatency, this.tableThrottles, this.tableSystemErrors, this.misconfigured, ...this.functionAlarms].filter(
      (a) => a !== undefined,
    );
    this.composite =
      service.length === 0
        ? undefined
        : new CompositeAlarm(this, 'Service', {
            compositeAlarmName: `${prefix}-service`,
            alarmDescription: 'recordgate is unhealthy: see the triggering alarms',
            alarmRule: AlarmRule.anyOf(...service.map((a) => AlarmRule.fromAlarm(a, AlarmState.ALARM))),
          });

    this.overdueBots = alarm('bots-overdue', 'A OneBot bot has missed its heartbeats', this.metrics.overdueBots, {
      when: 'essential',
      threshold: t.overdueBots.atLeast,
      comparison: atLeast,
      datapoints: t.overdueBots.datapoints,
      of: t.overdueBots.of,
    });

    const notify = new SnsAction(this.topic);
    for (const watched of [this.composite, this.overdueBots]) {
      watched?.addAlarmAction(notify);
      watched?.addOkAction(notify);
    }
  }
}
