import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { HTTP_FUNCTIONS, type HttpFunctionName } from '../shared/manifest/functions';
import { serviceFunction, type FunctionResources } from './service-function';

/** One function per HTTP function of shared/manifest/functions.ts, so a new one appears by itself. */
export class ApiFunctions extends Construct {
  readonly byName: ReadonlyMap<HttpFunctionName, LambdaFunction>;

  constructor(scope: Construct, id: string, resources: FunctionResources) {
    super(scope, id);
    this.byName = new Map(HTTP_FUNCTIONS.map((name) => [name, serviceFunction(this, name, resources)]));
  }
}
