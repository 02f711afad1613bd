import { AwsSolutionsChecks } from 'cdk-nag';
import { synthTemplate } from './synth';

test.each([
  ['default settings', {}],
  ['JWT authorizer and alarm subscribers', { jwtIssuer: 'https://id.example.com/', jwtAudience: 'recordgate', alarmEmail: 'ops@example.com' }],
])('cdk-nag AwsSolutions finds nothing unacknowledged (%s)', (_label, context) => {
  const { app, stack } = synthTemplate(context);
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  expect(report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
});
