import type { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * An EventBridge rule that runs `fn` every `rate`, never retried: each scheduled function
 * (health_check, index_build) treats its next run as the retry, so a retry would only run it
 * twice in one period.
 */
export function runEvery(scope: Construct, id: string, fn: IFunction, rate: Duration, description: string): Rule {
  return new Rule(scope, id, {
    description,
    schedule: Schedule.rate(rate),
    targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
  });
}
