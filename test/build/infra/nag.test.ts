import { type SynthVariant, synthesized } from '../../support/synth';

// Every synthesis also runs cdk-nag (infra/app.ts adds it as a validation plugin, which stops a
// synth with findings); its findings are also kept by test/support/synth for a readable failure.
test.each<[string, SynthVariant]>([
  ['default settings', 'default'],
  ['every option: JWT authorizer, alarm subscribers, CORS, removal=destroy', 'options'],
  ['an existing table in an x86_64-only region', 'x86Region'],
])('cdk-nag AwsSolutions finds nothing unacknowledged (%s)', (_label, variant) => {
  expect(synthesized(variant).violations).toEqual([]);
});
