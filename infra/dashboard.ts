import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { type Alarm, AlarmStatusWidget, AlarmWidget, Dashboard, GraphWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { HEALTH_METRICS } from '../shared/health/metrics';
import type { ServiceAlarms } from './alarms';
import type { ChangeFeed, FeedWatch } from './feed';
import type { HealthCheck } from './health-check';

export interface ServiceDashboardProps {
  alarms: ServiceAlarms;
  functions: ReadonlyMap<string, IFunction>;
  api: HttpApi;
  table: ITableV2;
  healthCheck: HealthCheck;
  feed: Pick<ChangeFeed, 'deliveries'> & { metrics: FeedWatch<IMetric>; alarms?: FeedWatch<Alarm> };
}

/** One dashboard with the figures the alarms watch, each alarm the level made drawn with its threshold. */
export class ServiceDashboard extends Construct {
  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { alarms } = props;
    const period = Duration.minutes(5);
    const perFunction = (metric: (fn: IFunction) => IMetric) => [...props.functions].map(([, fn]) => metric(fn));
    const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 8 });
    // A figure an alarm watches, drawn with its threshold, or alone where the alarm level made none.
    const watched = (title: string, alarm: Alarm | undefined, metric: IMetric, width = 8) =>
      alarm ? new AlarmWidget({ title, alarm, width }) : new GraphWidget({ title, left: [metric], width });
    const statuses = [
      alarms.composite,
      alarms.health,
      alarms.api5xx,
      alarms.apiLatency,
      alarms.tableThrottles,
      alarms.tableSystemErrors,
      alarms.overdueBots,
      ...alarms.functionAlarms,
      ...Object.values(props.feed.alarms ?? {}),
    ].filter((a) => a !== undefined);

    new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      defaultInterval: Duration.hours(6),
      widgets: [
        statuses.length > 0 ? [new AlarmStatusWidget({ title: 'Alarms', alarms: statuses, width: 24 })] : [],
        [
          watched('Health check (1 = healthy)', alarms.health, alarms.metrics.health),
          graph('Database latency seen by the health check (ms)', [props.healthCheck.metric(HEALTH_METRICS.latency, 'Maximum')]),
          watched('Bots overdue with their heartbeat', alarms.overdueBots, alarms.metrics.overdueBots),
        ],
        [
          graph('API requests, 4xx, 5xx', [
            props.api.metricCount({ statistic: 'Sum', period }),
            props.api.metricClientError({ statistic: 'Sum', period }),
            props.api.metricServerError({ statistic: 'Sum', period }),
          ]),
          watched('API 5xx %', alarms.api5xx, alarms.metrics.api5xxPercent),
          watched('API latency p99 (ms)', alarms.apiLatency, alarms.metrics.apiLatency),
        ],
        [
          graph(
            'Function errors',
            perFunction((fn) => fn.metricErrors({ statistic: 'Sum', period })),
          ),
          graph(
            'Function throttles',
            perFunction((fn) => fn.metricThrottles({ statistic: 'Sum', period })),
          ),
          graph(
            'Function duration p99 (ms)',
            perFunction((fn) => fn.metricDuration({ statistic: 'p99', period })),
          ),
        ],
        [
          graph('DynamoDB consumed read/write units', [
            props.table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period }),
            props.table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period }),
          ]),
          watched('DynamoDB throttle events', alarms.tableThrottles, alarms.metrics.tableThrottles),
          watched('DynamoDB system errors', alarms.tableSystemErrors, alarms.metrics.tableSystemErrors),
        ],
        [
          watched('Change feed: iterator age (ms)', props.feed.alarms?.iteratorAge, props.feed.metrics.iteratorAge, 6),
          watched('Change feed: batches given up', props.feed.alarms?.failedBatches, props.feed.metrics.failedBatches, 6),
          watched('Change feed: poison deliveries', props.feed.alarms?.poisonDeliveries, props.feed.metrics.poisonDeliveries, 6),
          watched('Change feed: dead letters', props.feed.alarms?.deadLetters, props.feed.metrics.deadLetters, 6),
        ],
        [
          new GraphWidget({
            title: 'Webhook deliveries waiting and in flight',
            width: 24,
            left: [
              props.feed.deliveries.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
              props.feed.deliveries.metricApproximateNumberOfMessagesNotVisible({ statistic: 'Maximum', period }),
            ],
          }),
        ],
      ],
    });
  }
}
