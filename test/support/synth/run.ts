import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../../../infra/app';
import { SYNTH_VARIANTS, type VariantSpec } from './variants';

// Run by ./index.ts in a plain Node process: aws-cdk-lib loads once here, in a fraction of the
// time it takes inside each jest test file's module registry. Writes <name>.json per variant:
// the template and cdk-nag's findings, or the error the synth stopped with.
const out = process.argv[2];
async function synthesizeEach(): Promise<void> {
  for (const [name, { context, env }] of Object.entries<VariantSpec>(SYNTH_VARIANTS)) {
    let result: unknown;
    try {
      // No bundling (fast); `npm run synth` and test/build/infra/function-bundle.test.ts bundle for real.
      const { app, stack } = await buildApp({ 'aws:cdk:bundling-stacks': [], ...context }, env);
      const assembly = app.synth();
      const template = assembly.getStackArtifact(stack.artifactId).template;
      // The cloud assembly too, for what only the CDK CLI tells (`cdk diff --app <dir>`: replacement or update in place).
      cpSync(assembly.directory, join(out, `${name}.assembly`), { recursive: true });
      const nag = new AwsSolutionsChecks(app).validateScope(stack);
      const violations = nag.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
      result = { template, violations };
    } catch (error) {
      result = { error: (error as Error).message };
    }
    writeFileSync(join(out, `${name}.json`), JSON.stringify(result));
  }
}

void synthesizeEach();
