import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as ServiceFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { HEALTH_METRICS, type HealthMetricName } from '../shared/health/metrics';
import { serviceFunction, type FunctionResources } from './service-function';
import { runEvery } from './schedule';

/** The scheduled health check: functions/health_check every minute, and the metrics it emits. */
export class HealthCheck extends Construct {
  readonly function: ServiceFunction;

  constructor(
    scope: Construct,
    id: string,
    private readonly resources: FunctionResources,
  ) {
    super(scope, id);
    this.function = serviceFunction(this, 'health_check', resources);
    // A retry would land in the next minute's datapoint; the next run is the retry.
    runEvery(this, 'EveryMinute', this.function, Duration.minutes(1), 'recordgate health check');
  }

  metric(name: HealthMetricName, statistic: string, period = Duration.minutes(1)): Metric {
    return new Metric({
      namespace: HEALTH_METRICS.namespace,
      metricName: name,
      dimensionsMap: { [HEALTH_METRICS.dimension]: this.resources.table.tableName },
      statistic,
      period,
    });
  }
}
