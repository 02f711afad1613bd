import { Duration } from 'aws-cdk-lib';
import type { Function as ServiceFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { serviceFunction, type FunctionResources } from './service-function';
import { runEvery } from './schedule';

/**
 * functions/aggregate_expiry every minute (shared/aggregates/expire.ts): the records of a model
 * with a ttl leave its aggregates within a minute of expiring, not when DynamoDB's TTL deletes
 * them. Made by the RecordGate construct only where a served model has a ttl and aggregates.
 */
export class AggregateExpiry extends Construct {
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, resources: FunctionResources) {
    super(scope, id);
    this.function = serviceFunction(this, 'aggregate_expiry', resources);
    // What a run leaves is due at the next one: the next run is the retry.
    runEvery(this, 'EveryMinute', this.function, Duration.minutes(1), 'recordgate aggregate expiry');
  }
}
