import { App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readContext } from './context';
import { RecordgateStack } from './stack';

/** Builds the app; tests call this with their own context and region instead of running the CLI. */
export function buildApp(
  context: Record<string, unknown> = {},
  env: Environment = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
): { app: App; stack: RecordgateStack } {
  const app = new App({ context });
  const settings = readContext(app.node);
  const stack = new RecordgateStack(app, settings.stackName, {
    settings,
    description: 'recordgate: validated record API and OneBot receivers on DynamoDB',
    env,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

if (require.main === module) buildApp().app.synth();
