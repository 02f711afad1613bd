import { Stack, Token } from 'aws-cdk-lib';
import { Architecture, ParamsAndSecretsLayerVersion, ParamsAndSecretsVersions } from 'aws-cdk-lib/aws-lambda';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import type { Construct } from 'constructs';

/** The newest Parameters and Secrets Lambda Extension version whose layer ARNs aws-cdk-lib knows per region. */
export const SECRETS_EXTENSION_VERSION = ParamsAndSecretsVersions.V1_0_103;

/** Where AWS lists the extension's layer ARN of every region and architecture. */
export const SECRETS_EXTENSION_ARNS_URL = 'https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda_ARNs.html';

/**
 * The architecture every function of the stack runs on, and the AWS Parameters and Secrets Lambda
 * Extension layer that matches it: shared/secrets.ts reads secrets through it over localhost
 * instead of bundling the SDK's Secrets Manager client (issue 14: ~24 KiB of each bundle).
 */
export interface LambdaPlatform {
  architecture: Architecture;
  secretsLayer: ParamsAndSecretsLayerVersion;
}

/**
 * Decided at synth from the stack's region: arm64 (20% cheaper per GB-second) where AWS publishes
 * the extension for arm64, x86_64 where it publishes it only for x86_64 (AWS has not released
 * the arm64 layer in every region), and the operator's own layer ARN (`-c secretsLayerArn=`,
 * from AWS's list) where aws-cdk-lib knows neither. A region-agnostic synth keeps arm64 and
 * CDK's per-region mapping, which is resolved at deploy.
 */
export function lambdaPlatform(scope: Construct, secretsLayerArn?: string): LambdaPlatform {
  // The extension is off-cache: shared/secrets.ts's five-minute cache alone decides when a rotated value is seen.
  const options = { cacheEnabled: false };
  if (secretsLayerArn) {
    return {
      architecture: /-Arm64:\d+$/.test(secretsLayerArn) ? Architecture.ARM_64 : Architecture.X86_64,
      secretsLayer: ParamsAndSecretsLayerVersion.fromVersionArn(secretsLayerArn, options),
    };
  }
  const secretsLayer = ParamsAndSecretsLayerVersion.fromVersion(SECRETS_EXTENSION_VERSION, options);
  const region = Stack.of(scope).region;
  if (Token.isUnresolved(region)) return { architecture: Architecture.ARM_64, secretsLayer };
  const published = (architecture: Architecture) =>
    RegionInfo.get(region).paramsAndSecretsLambdaLayerArn(SECRETS_EXTENSION_VERSION, architecture.name) !== undefined;
  const architecture = [Architecture.ARM_64, Architecture.X86_64].find(published);
  if (!architecture) {
    throw new Error(
      `aws-cdk-lib knows no Parameters and Secrets Lambda Extension layer in ${region}: deploy with -c secretsLayerArn=<the layer ARN AWS lists for ${region}> (${SECRETS_EXTENSION_ARNS_URL})`,
    );
  }
  return { architecture, secretsLayer };
}
