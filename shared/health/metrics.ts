/**
 * The service's custom metrics, named once for the functions that emit them and for the alarms
 * and dashboard that watch them: the scheduled health check's, and `Misconfigured`, counted by
 * any function that meets a missing table, grant or credentials. The dimension is the table
 * name, so two stacks in one account never mix their figures.
 */
export const HEALTH_METRICS = {
  namespace: 'Recordgate',
  dimension: 'Table',
  healthy: 'Healthy',
  latency: 'DatabaseLatency',
  overdueBots: 'OverdueBots',
  misconfigured: 'Misconfigured',
} as const;

export type HealthMetricName = (typeof HEALTH_METRICS)['healthy' | 'latency' | 'overdueBots' | 'misconfigured'];

export interface Measurement {
  name: HealthMetricName;
  value: number;
  unit: 'Count' | 'Milliseconds';
}
