import { inLambda, settings } from '../config';
import { HEALTH_METRICS, type Measurement } from './metrics';

/**
 * One CloudWatch Embedded Metric Format document: CloudWatch Logs turns it into metrics, so
 * the health check needs neither a CloudWatch client nor cloudwatch:PutMetricData.
 */
export function emfDocument(namespace: string, dimensions: Record<string, string>, measurements: ReadonlyArray<Measurement>, timestamp: number) {
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [Object.keys(dimensions)],
          Metrics: measurements.map(({ name, unit }) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    ...dimensions,
    ...Object.fromEntries(measurements.map(({ name, value }) => [name, value])),
  };
}

/**
 * Writes the document as one line straight to stdout. With Lambda's JSON log format, console.log
 * wraps its text in {"message": ...}, which CloudWatch no longer reads as EMF; a raw stdout line
 * is kept as it is.
 */
export function writeEmf(document: ReturnType<typeof emfDocument>): void {
  process.stdout.write(`${JSON.stringify(document)}\n`);
}

/**
 * Counts one misconfiguration met (a missing table, grant or credentials) for its alarm
 * (infra/alarms.ts): a receiver that keeps deliveries answers 200, which no 5xx alarm sees.
 * Only in Lambda, where CloudWatch reads stdout; locally the error log line says it.
 */
export function countMisconfiguration(): void {
  if (!inLambda()) return;
  const measurement: Measurement = { name: HEALTH_METRICS.misconfigured, value: 1, unit: 'Count' };
  writeEmf(emfDocument(HEALTH_METRICS.namespace, { [HEALTH_METRICS.dimension]: settings().TABLE_NAME }, [measurement], Date.now()));
}
