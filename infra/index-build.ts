import { CustomResource, Duration } from 'aws-cdk-lib';
import type { Function as ServiceFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { Model } from '../shared/models/model';
import { schemaFingerprint } from '../shared/store/layout/layout';
import { serviceFunction, type FunctionResources } from './service-function';
import { runEvery } from './schedule';

/** What the deploy check compares with the table: a deploy that changes any of it runs the check again. */
const definitions = (models: ReadonlyArray<Model>) =>
  models.map((m) => ({ name: m.name, indexed: m.indexed, shards: m.shards, schema: schemaFingerprint(m), aggregates: m.aggregates }));

/**
 * functions/index_build (shared/store/layout/index-build.ts, shared/aggregates/backfill.ts): run by the deploy as a custom resource
 * whenever a model's definition changes, after the record functions are in place, so that a
 * change the stored records cannot follow fails the deploy and CloudFormation rolls it back;
 * then every five minutes, going on with an index build where the last run stopped.
 */
export class IndexBuild extends Construct {
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, props: FunctionResources & { after: ReadonlyArray<Construct> }) {
    super(scope, id);
    this.function = serviceFunction(this, 'index_build', props);
    // The next run is the retry: it starts where this one recorded its progress.
    runEvery(this, 'EveryFiveMinutes', this.function, Duration.minutes(5), 'recordgate index build');
    const atDeploy = new CustomResource(this, 'ModelLayouts', {
      serviceToken: this.function.functionArn,
      resourceType: 'Custom::ModelLayouts',
      properties: { Models: JSON.stringify(definitions(props.models.all)) },
    });
    atDeploy.node.addDependency(...props.after);
  }
}
