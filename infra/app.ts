import { App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readContext } from './context';
import { subscriptionsAtSynth } from './feed';
import { RecordgateStack } from './stack';

/**
 * Builds the app; tests call this with their own context and region instead of running the CLI.
 * Async for one reason: the change feed's subscriptions are checked against the catalog, whose
 * models load on demand, before any construct is made.
 */
export async function buildApp(
  context: Record<string, unknown> = {},
  env: Environment = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
): Promise<{ app: App; stack: RecordgateStack }> {
  const app = new App({ context });
  const settings = readContext(app.node);
  const subscriptions = await subscriptionsAtSynth(settings.subscriptionsFile);
  const stack = new RecordgateStack(app, settings.stackName, {
    settings,
    subscriptions,
    description: 'recordgate: validated record API and OneBot receivers on DynamoDB',
    env,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

if (require.main === module)
  buildApp().then(
    ({ app }) => app.synth(),
    (error: Error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
