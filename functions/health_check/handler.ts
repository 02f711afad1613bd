import type { Context } from 'aws-lambda';
import { settings } from '../../shared/config';
import { withinInvocation } from '../../shared/invocation';
import { measureHealth } from '../../shared/health/check';
import { emfDocument, writeEmf } from '../../shared/health/emf';
import { HEALTH_METRICS } from '../../shared/health/metrics';

/**
 * Runs every minute (EventBridge schedule). It never throws: an unhealthy database is the
 * metric value 0, and a missing datapoint (the function itself broken) also alarms.
 */
export const handler = async (_event: unknown, context: Context): Promise<void> => {
  const measurements = await withinInvocation(context, measureHealth);
  writeEmf(emfDocument(HEALTH_METRICS.namespace, { [HEALTH_METRICS.dimension]: settings().TABLE_NAME }, measurements, Date.now()));
};
