import type { Context } from 'aws-lambda';
import { expireAggregates, expiresAggregates } from '../../shared/aggregates/expire';
import { withinInvocation } from '../../shared/invocation';
import { log } from '../../shared/log';
import { loadAllModels } from '../../shared/models/load-all';

/**
 * Runs every minute (EventBridge schedule, infra/aggregate-expiry.ts), deployed only where a
 * served model has a ttl and aggregates: takes the records expired since the last run out of
 * their groups. A failure throws, for the error alarm; the next run is the retry, and what this
 * one left (its deadline came) is due then.
 */
export const handler = (_event: unknown, context: Context): Promise<void> =>
  withinInvocation(context, async () => {
    for (const model of (await loadAllModels()).filter(expiresAggregates)) {
      const run = await expireAggregates(model);
      if (run.removed > 0 || !run.done) log.info('aggregate_expiry', { model: model.name, ...run });
    }
  });
