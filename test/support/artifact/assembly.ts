import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The synthesized app as `npm run synth` leaves it: what AWS would deploy, read from cdk.out. */
export const CDK_OUT = path.resolve(__dirname, '../../../cdk.out');

type Resource = { Type: string; Properties: any; Metadata?: Record<string, string> }; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface DeployedFunction {
  /** The route table's name for it (its Description is `recordgate <name>`). */
  name: string;
  logicalId: string;
  /** The bundle directory in cdk.out: exactly the zip Lambda would run. */
  assetDir: string;
  /** Its environment as the template gives it; references are left for the harness to resolve. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memoryMb: number;
  /** The DynamoDB actions its role is granted. */
  tableActions: Set<string>;
}

export interface Assembly {
  functions: Map<string, DeployedFunction>;
  /** Route keys of the HTTP API and the function each integrates with; `$default` among them. */
  routes: Array<{ key: string; target: string }>;
  template: { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };
}

export function readAssembly(stackName = 'Recordgate'): Assembly {
  const template = JSON.parse(readFileSync(path.join(CDK_OUT, `${stackName}.template.json`), 'utf8'));
  const resources = template.Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const policies = ofType('AWS::IAM::Policy');
  const functions = new Map<string, DeployedFunction>();
  for (const [logicalId, fn] of ofType('AWS::Lambda::Function')) {
    const name = String(fn.Properties.Description).replace(/^recordgate /, '');
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    const tableActions = new Set(
      policies
        .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
        .flatMap((s: { Action: string | string[] }) => [s.Action].flat())
        .filter((a: string) => a.startsWith('dynamodb:')),
    );
    functions.set(name, {
      name,
      logicalId,
      assetDir: path.join(CDK_OUT, fn.Metadata!['aws:asset:path']),
      environment: fn.Properties.Environment?.Variables ?? {},
      timeoutSeconds: fn.Properties.Timeout,
      memoryMb: fn.Properties.MemorySize,
      tableActions,
    });
  }
  const nameOf = (logicalId: string) => [...functions.values()].find((f) => f.logicalId === logicalId)!.name;
  const routes = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => {
    const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
    return { key: route.Properties.RouteKey as string, target: nameOf(resources[integrationId].Properties.IntegrationUri['Fn::GetAtt'][0]) };
  });
  return { functions, routes, template };
}
