/**
 * The custom metrics of the scheduled health check, named once for the function that emits
 * them and for the alarms and dashboard that watch them. The dimension is the table name, so
 * two stacks in one account never mix their figures.
 */
export const HEALTH_METRICS = {
  namespace: 'Recordgate',
  dimension: 'Table',
  healthy: 'Healthy',
  latency: 'DatabaseLatency',
  overdueBots: 'OverdueBots',
} as const;

export type HealthMetricName = (typeof HEALTH_METRICS)['healthy' | 'latency' | 'overdueBots'];

export interface Measurement {
  name: HealthMetricName;
  value: number;
  unit: 'Count' | 'Milliseconds';
}
