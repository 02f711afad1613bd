import type { Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../../infra/app';

/** The stack's template without bundling (fast); `npm run synth` and one test bundle for real. */
export function synthTemplate(context: Record<string, unknown> = {}, env?: Environment) {
  const { app, stack } = buildApp({ 'aws:cdk:bundling-stacks': [], ...context }, env);
  return { app, stack, template: Template.fromStack(stack) };
}

type Resources = Record<string, { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

/** Lookups over a synthesized template, by what a reader of the stack knows: function names. */
export function templateIndex(template: Template) {
  const resources = template.toJSON().Resources as Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const functionId = (name: string): string => {
    const found = ofType('AWS::Lambda::Function').find(([, r]) => r.Properties.Description === `recordgate ${name}`);
    if (!found) throw new Error(`no function ${name}`);
    return found[0];
  };
  const functionProps = (name: string) => resources[functionId(name)].Properties;
  /** Every IAM action granted to a function's role, with the resources of each statement. */
  const statementsOf = (name: string): Array<{ actions: string[]; resources: unknown[] }> => {
    const roleId = functionProps(name).Role['Fn::GetAtt'][0];
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
      .map((s: { Action: string | string[]; Resource: unknown }) => ({ actions: [s.Action].flat(), resources: [s.Resource].flat() }));
  };
  const actionsOf = (name: string) => new Set(statementsOf(name).flatMap((s) => s.actions));
  return { resources, ofType, functionId, functionProps, statementsOf, actionsOf };
}
