import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { AlarmStatusWidget, AlarmWidget, Dashboard, GraphWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { HEALTH_METRICS } from '../shared/health/metrics';
import type { ServiceAlarms } from './alarms';
import type { ChangeFeed } from './feed';
import type { HealthCheck } from './health-check';

export interface ServiceDashboardProps {
  alarms: ServiceAlarms;
  functions: ReadonlyMap<string, IFunction>;
  api: HttpApi;
  table: ITableV2;
  healthCheck: HealthCheck;
  feed: Pick<ChangeFeed, 'deliveries'> & { alarms: ReturnType<ChangeFeed['alarmTo']> };
}

/** One dashboard with the figures the alarms watch, each alarm drawn with its threshold. */
export class ServiceDashboard extends Construct {
  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { alarms } = props;
    const period = Duration.minutes(5);
    const perFunction = (metric: (fn: IFunction) => IMetric) => [...props.functions].map(([, fn]) => metric(fn));
    const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 8 });
    const alarmGraph = (title: string, alarm: ServiceAlarms['health']) => new AlarmWidget({ title, alarm, width: 8 });

    new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      defaultInterval: Duration.hours(6),
      widgets: [
        [
          new AlarmStatusWidget({
            title: 'Alarms',
            alarms: [
              alarms.composite,
              alarms.health,
              alarms.api5xx,
              alarms.apiLatency,
              alarms.tableThrottles,
              alarms.tableSystemErrors,
              alarms.overdueBots,
              ...alarms.functionAlarms,
              ...Object.values(props.feed.alarms),
            ],
            width: 24,
          }),
        ],
        [
          alarmGraph('Health check (1 = healthy)', alarms.health),
          graph('Database latency seen by the health check (ms)', [props.healthCheck.metric(HEALTH_METRICS.latency, 'Maximum')]),
          alarmGraph('Bots overdue with their heartbeat', alarms.overdueBots),
        ],
        [
          graph('API requests, 4xx, 5xx', [
            props.api.metricCount({ statistic: 'Sum', period }),
            props.api.metricClientError({ statistic: 'Sum', period }),
            props.api.metricServerError({ statistic: 'Sum', period }),
          ]),
          alarmGraph('API 5xx %', alarms.api5xx),
          alarmGraph('API latency p99 (ms)', alarms.apiLatency),
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
          alarmGraph('DynamoDB throttle events', alarms.tableThrottles),
          alarmGraph('DynamoDB system errors', alarms.tableSystemErrors),
        ],
        [
          new AlarmWidget({ title: 'Change feed: iterator age (ms)', alarm: props.feed.alarms.iteratorAge, width: 6 }),
          new AlarmWidget({ title: 'Change feed: batches given up', alarm: props.feed.alarms.failedBatches, width: 6 }),
          new AlarmWidget({ title: 'Change feed: poison deliveries', alarm: props.feed.alarms.poisonDeliveries, width: 6 }),
          new AlarmWidget({ title: 'Change feed: dead letters', alarm: props.feed.alarms.deadLetters, width: 6 }),
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
