import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { FUNCTIONS, type FunctionName } from '../shared/http/routes';
import { serviceFunction, type FunctionResources } from './function';

/** One function per entry of the route table's FUNCTIONS, so a new route's function appears by itself. */
export class ApiFunctions extends Construct {
  readonly byName: ReadonlyMap<FunctionName, NodejsFunction>;

  constructor(scope: Construct, id: string, resources: FunctionResources) {
    super(scope, id);
    this.byName = new Map(FUNCTIONS.map((name) => [name, serviceFunction(this, name, resources)]));
  }
}
