import { CustomResource, Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Function as ServiceFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { MODELS } from '../shared/models/registry';
import { schemaFingerprint } from '../shared/store/index-build';
import { serviceFunction, type FunctionResources } from './function';

/** What the deploy check compares with the table: a deploy that changes any of it runs the check again. */
const definitions = () => MODELS.map((m) => ({ name: m.name, indexed: m.indexed, shards: m.shards, schema: schemaFingerprint(m) }));

/**
 * functions/index_build (shared/store/index-build.ts): run by the deploy as a custom resource
 * whenever a model's definition changes, after the record functions are in place, so that a
 * change the stored records cannot follow fails the deploy and CloudFormation rolls it back;
 * then every five minutes, going on with an index build where the last run stopped.
 */
export class IndexBuild extends Construct {
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, props: FunctionResources & { after: Construct }) {
    super(scope, id);
    this.function = serviceFunction(this, 'index_build', props);
    new Rule(this, 'EveryFiveMinutes', {
      description: 'recordgate index build',
      schedule: Schedule.rate(Duration.minutes(5)),
      // The next run is the retry: it starts where this one recorded its progress.
      targets: [new LambdaFunction(this.function, { retryAttempts: 0 })],
    });
    const atDeploy = new CustomResource(this, 'ModelLayouts', {
      serviceToken: this.function.functionArn,
      resourceType: 'Custom::ModelLayouts',
      properties: { Models: JSON.stringify(definitions()) },
    });
    atDeploy.node.addDependency(props.after);
  }
}
