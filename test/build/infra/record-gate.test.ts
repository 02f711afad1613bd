import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RecordGate } from '../../../infra/record-gate';
import { synthesized, templateIndex } from '../../support/synth';

// The upgrade path from a fork (docs/deploying.md, "Adopting recordgate"): the forked stack is the
// RecordGate construct under the id Default, which CDK leaves out of logical ids, so a team that
// moves its models out and holds the construct under Default, in a stack of the fork's name,
// deploys over the fork's stack with every logical id kept: CloudFormation updates the table in
// place instead of replacing it.

/** The table's logical id in the forked stack before the construct existed (commit b344446). */
const FORKED_TABLE = 'RecordsTableC9B7A30B';
const forked = synthesized('default').template.toJSON();
const idsOf = (template: Record<string, Record<string, { Type: string }>>, type?: string) =>
  Object.entries(template.Resources)
    .filter(([, r]) => type === undefined || r.Type === type)
    .map(([id]) => id)
    .sort();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'record-gate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the forked stack keeps the table's logical id of the stack before the construct", () => {
  expect(idsOf(forked, 'AWS::DynamoDB::GlobalTable')).toEqual([FORKED_TABLE]);
});

test('the construct under Default, with models moved out of the fork, keeps every logical id of the forked stack', () => {
  const models = path.join(dir, 'models.ts');
  const define = JSON.stringify(path.resolve(__dirname, '../../../shared/models/index.ts'));
  writeFileSync(
    models,
    `import { defineModel, zm } from ${define};\nexport const note = defineModel({ name: 'note', schema: zm.object({ n: zm.number() }) });`,
  );
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Recordgate');
  new RecordGate(stack, 'Default', { models, reaction: true });
  const adopted = Template.fromStack(stack).toJSON();
  expect(idsOf(adopted, 'AWS::DynamoDB::GlobalTable')).toEqual([FORKED_TABLE]);
  expect(idsOf(adopted)).toEqual(idsOf(forked));
  expect(Object.keys(adopted.Outputs).sort()).toEqual(Object.keys(forked.Outputs).sort());
  // What did change is what the models decide: the deploy's check of the models' layouts.
  const [layouts] = Object.values(adopted.Resources as Record<string, { Type: string; Properties: { Models: string } }>).filter(
    (r) => r.Type === 'Custom::ModelLayouts',
  );
  expect(JSON.parse(layouts.Properties.Models).map((m: { name: string }) => m.name)).toEqual(['reaction', 'onebot_event', 'onebot_bot', 'onebot_rule', 'note']);
}, 120_000);

test('a team model with a ttl and aggregates brings aggregate_expiry: every minute, never retried, its own grants and alarms; the shipped stack has none', () => {
  const models = path.join(dir, 'expiring.ts');
  const define = JSON.stringify(path.resolve(__dirname, '../../../shared/models/index.ts'));
  writeFileSync(
    models,
    `import { defineModel, zm } from ${define};\nexport const lease = defineModel({ name: 'lease', schema: zm.object({ holder: zm.string(), until: zm.int() }), ttl: 'until', aggregates: { by_holder: { group_by: ['holder'], count: true } } });`,
  );
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Recordgate');
  new RecordGate(stack, 'Default', { models });
  const team = templateIndex(Template.fromStack(stack));
  const ruleOf = (ix: ReturnType<typeof templateIndex>) =>
    ix.ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.Description === 'recordgate aggregate expiry');
  const [[, rule]] = ruleOf(team);
  expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
  expect(rule.Properties.Targets).toEqual([
    expect.objectContaining({ Arn: { 'Fn::GetAtt': [team.functionId('aggregate_expiry'), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } }),
  ]);
  const tableActions = (ix: ReturnType<typeof templateIndex>, name: string) => [...ix.actionsOf(name)].filter((a) => a.startsWith('dynamodb:')).sort();
  expect(tableActions(team, 'aggregate_expiry')).toEqual([
    'dynamodb:DeleteItem',
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:Query',
    'dynamodb:UpdateItem',
  ]);
  // The feed's consumer and the backfill move a record's expiry marker too.
  for (const name of ['feed', 'index_build']) expect(tableActions(team, name)).toContain('dynamodb:DeleteItem');
  const alarmNames = team.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties.AlarmName);
  expect(alarmNames).toEqual(expect.arrayContaining(['Recordgate-aggregate_expiry-errors', 'Recordgate-aggregate_expiry-throttles']));

  const shipped = templateIndex(synthesized('default').template);
  expect(ruleOf(shipped)).toEqual([]);
  expect(() => shipped.functionId('aggregate_expiry')).toThrow();
  expect(shipped.actionsOf('index_build').has('dynamodb:DeleteItem')).toBe(false);
}, 120_000);
